import { consumerDown, monitorDown } from './alerts/absent';
import { dlqBacklog } from './alerts/dlq-backlog';
import { dlqNewMessages } from './alerts/dlq-new-messages';
import { dlqOldestMessageAge } from './alerts/dlq-oldest-message-age';
import { dlqRecordsExpired } from './alerts/dlq-records-expired';
import { mainConsumerLag } from './alerts/main-consumer-lag';
import { retryRateSpike } from './alerts/retry-rate-spike';
import { retryTierStuck } from './alerts/retry-tier-stuck';
import type { AlertContext } from './alerts/context';
import type { AlertRule } from './rule';

/** Every alert rule of a consumer, in the order of the runbook. */
export function alertRules(ctx: AlertContext): AlertRule[] {
  return [
    dlqNewMessages,
    dlqBacklog,
    dlqOldestMessageAge,
    dlqRecordsExpired,
    retryTierStuck,
    retryRateSpike,
    mainConsumerLag,
    consumerDown,
    monitorDown,
  ].flatMap((build) => build(ctx));
}
