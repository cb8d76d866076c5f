import type { ConsumerModel, RetryTierModel } from './types';

/**
 * The concrete limits each alert works with, derived once from the consumer's alert
 * policies, so the rules and the runbooks state the same numbers.
 */
export const alertThresholds = {
  /** DLQ records in 10 minutes that fire KafkaDlqNewMessages. */
  dlqNewRecords: (c: ConsumerModel) => Math.ceil(c.alerts.dlqNewMessages.threshold),
  /** Unhandled DLQ records that fire KafkaDlqBacklog. */
  dlqBacklogRecords: (c: ConsumerModel) => Math.ceil(c.alerts.dlqBacklog.threshold),
  /** Age in seconds of the oldest unhandled DLQ record that fires KafkaDlqOldestMessageAge. */
  dlqOldestAgeSeconds: (c: ConsumerModel) => Math.round((c.alerts.dlqOldestMessageAge.threshold * c.dlq.retentionMs) / 1000),
  /** p99 lateness in seconds past which a tier is late. */
  tierLateSeconds: (c: ConsumerModel, tier: RetryTierModel) => Math.round((c.alerts.retryTierStuck.threshold * tier.delayMs) / 1000),
  /**
   * How long records may wait in a tier with no progress before it counts as stalled:
   * (factor + 1) delays, so the head record, due at most one delay after it arrived,
   * is overdue by `factor` delays; never under the rule's own `for` or 5 minutes.
   */
  tierStalledMs: (c: ConsumerModel, tier: RetryTierModel) =>
    Math.max(c.alerts.retryTierStuck.forMs, (c.alerts.retryTierStuck.threshold + 1) * tier.delayMs, 5 * 60_000),
  /** Share of main-topic records sent to retry that fires KafkaRetryRateSpike. */
  retryShare: (c: ConsumerModel) => c.alerts.retryRateSpike.threshold,
};
