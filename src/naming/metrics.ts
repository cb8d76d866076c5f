/** The runtime's prom-client metrics; the generated alert rules query exactly these. */
export const METRICS = {
  messagesTotal: 'kafka_retry_messages_total',
  retryRoutedTotal: 'kafka_retry_routed_total',
  dlqRoutedTotal: 'kafka_dlq_routed_total',
  deliveryLatenessSeconds: 'kafka_retry_delivery_lateness_seconds',
  dlqSize: 'kafka_dlq_size',
  dlqOldestUnhandledTimestampSeconds: 'kafka_dlq_oldest_unhandled_timestamp_seconds',
  retryTierLag: 'kafka_retry_tier_lag',
  /** Now minus the due time of a tier partition's head record while it is overdue; 0 otherwise. */
  retryTierOverdueSeconds: 'kafka_retry_tier_overdue_seconds',
  /** Records of the main topic the main group has not consumed (kafka-lag-exporter's `kafka_consumergroup_group_lag`). */
  mainLag: 'kafka_retry_main_lag',
  /** How long ago the main group's next record was written (kafka-lag-exporter's time lag). */
  mainLagSeconds: 'kafka_retry_main_lag_seconds',
  /** Unhandled DLQ records that retention deleted. */
  dlqExpiredTotal: 'kafka_dlq_expired_total',
  /** Publishes to a tier or the DLQ that failed, by destination and reason. */
  publishFailuresTotal: 'kafka_retry_publish_failures_total',
} as const;
