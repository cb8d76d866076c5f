import { everyAlert, WATCHED } from './alert-module';
import type { AlertName } from '../naming';
import type { AlertModule } from './alert-module';
import { consumerDown } from './consumer-down';
import { dlqBacklog } from './dlq-backlog';
import { dlqNewMessages } from './dlq-new-messages';
import { dlqOldestMessageAge } from './dlq-oldest-message-age';
import { dlqRecordsExpired } from './dlq-records-expired';
import { mainConsumerLag } from './main-consumer-lag';
import { monitorDown } from './monitor-down';
import { retryRateSpike } from './retry-rate-spike';
import { retryTierStuck } from './retry-tier-stuck';

export { appliesTo, defineAlert } from './alert-module';
export { explanationsOf } from './explanations';
export type { Explanation } from './explanations';
export type { AlertModule, RunbookFacts, Watched } from './alert-module';
export type { AlertContext, AlertedConsumer } from './context';
export type { AlertRule, RuleScenario, TestSeries, ValueFormat } from './rule';
// Thresholds and windows the dashboards draw, as the rules compute them.
export { dlqBacklogRecords } from './dlq-backlog';
export { dlqOldestAgeSeconds } from './dlq-oldest-message-age';
export { retrySpikeShare, SHARE_WINDOW_MINUTES } from './retry-rate-spike';

/**
 * Every alert, in the order of the runbook and of the model's alert policies. The spec's
 * override keys, the names, the presets, the rules and their promtool tests, the runbook
 * sections and the docs' presets table are all read from this list: adding an alert is its
 * module and its entry here.
 */
const MODULES = everyAlert([
  dlqNewMessages,
  dlqBacklog,
  dlqOldestMessageAge,
  retryTierStuck,
  retryRateSpike,
  dlqRecordsExpired,
  mainConsumerLag,
  consumerDown,
  monitorDown,
]);

/** An alert's key: the spec's override key, one per module of ALERT_MODULES. */
export type AlertKey = (typeof MODULES)[number]['key'];

export const ALERT_MODULES: readonly AlertModule<AlertKey>[] = MODULES;
export const ALERT_KEYS: readonly AlertKey[] = MODULES.map((alert) => alert.key);

/** Every alert's name by its key, as the naming module makes it. */
export const ALERTS = Object.fromEntries(MODULES.map((alert) => [alert.key, alert.name])) as { readonly [K in AlertKey]: AlertName<K> };

/** The order of the rules file: grouped by what the alerts watch (the DLQ, the tiers, the main topic, the metrics themselves). */
export const ALERT_MODULES_BY_WATCHED: readonly AlertModule<AlertKey>[] = WATCHED.flatMap((watched) => ALERT_MODULES.filter((alert) => alert.watches === watched));
