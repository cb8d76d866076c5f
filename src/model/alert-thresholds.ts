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
  /** Seconds a tier partition's head record may be overdue before its tier counts as stuck. */
  tierOverdueSeconds: (c: ConsumerModel, tier: RetryTierModel) => Math.round((c.alerts.retryTierStuck.threshold * tier.delayMs) / 1000),
  /** Share of main-topic records sent to retry that fires KafkaRetryRateSpike. */
  retryShare: (c: ConsumerModel) => c.alerts.retryRateSpike.threshold,
  /** Unhandled DLQ records deleted by retention in an hour that fire KafkaDlqRecordsExpired. */
  dlqExpiredRecords: (c: ConsumerModel) => Math.ceil(c.alerts.dlqRecordsExpired.threshold),
  /** Seconds behind (age of the main group's next record) that fire KafkaRetryMainConsumerLag. */
  mainLagSeconds: (c: ConsumerModel) => Math.round(c.alerts.mainConsumerLag.threshold),
};
