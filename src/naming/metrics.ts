/** The runtime's prom-client metrics; the generated alert rules query exactly these. */
export const METRICS = {
  messagesTotal: 'kafka_retry_messages_total',
  retryRoutedTotal: 'kafka_retry_routed_total',
  dlqRoutedTotal: 'kafka_dlq_routed_total',
  deliveryLatenessSeconds: 'kafka_retry_delivery_lateness_seconds',
  dlqSize: 'kafka_dlq_size',
  dlqOldestUnhandledTimestampSeconds: 'kafka_dlq_oldest_unhandled_timestamp_seconds',
  retryTierLag: 'kafka_retry_tier_lag',
  publishFailuresTotal: 'kafka_retry_publish_failures_total',
} as const;
