import { ALERT_KEYS } from '../alerts';
import { CRITICALITY_PRESETS } from '../model/criticality';
import type { ConsumerModel } from '../model/types';

/**
 * A consumer of a snapshot written before some of today's alerts existed, with each
 * missing alert's policy as its criticality's preset, as the model would have had it. The
 * policies decide no guard, so a snapshot never needs a new version, nor a restore, for an
 * alert added since (adding an alert is its module and its list entry).
 */
export function withEveryAlert(consumer: ConsumerModel): ConsumerModel {
  const missing = ALERT_KEYS.filter((key) => consumer.alerts[key] === undefined);
  if (missing.length === 0) return consumer;
  const presets = CRITICALITY_PRESETS[consumer.criticality];
  return { ...consumer, alerts: { ...consumer.alerts, ...Object.fromEntries(missing.map((key) => [key, presets[key]])) } };
}
