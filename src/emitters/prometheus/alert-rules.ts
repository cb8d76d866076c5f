import { ALERT_MODULES_BY_WATCHED, appliesTo } from '../../alerts';
import type { AlertContext, AlertKey, AlertRule } from '../../alerts';

/** Every alert rule of a consumer, from the alert modules, grouped by what they watch. */
export function alertRules(ctx: AlertContext<AlertKey>): AlertRule[] {
  return ALERT_MODULES_BY_WATCHED.filter((alert) => appliesTo(alert, ctx.consumer)).flatMap((alert) => alert.rules(ctx));
}
