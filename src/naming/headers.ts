/** The self-describing headers of retry and DLQ records (R9). */
export const HEADERS = {
  attempt: 'x-attempt',
  dueAt: 'x-due-at',
  firstFailedAt: 'x-first-failed-at',
  originalTopic: 'x-original-topic',
  originalPartition: 'x-original-partition',
  originalOffset: 'x-original-offset',
  errorClass: 'x-error-class',
  errorMessage: 'x-error-message',
  replayedFromDlq: 'x-replayed-from-dlq',
} as const;

/**
 * How many times `krt dlq replay` has sent this record back from the DLQ (decimal). Only
 * the replay tool writes it; the runtime passes it through tiers and the DLQ unchanged
 * (it is not one of HEADERS), so a replayed record that fails again reaches the DLQ with
 * its count, and `krt dlq inspect` shows a record that keeps coming back.
 */
export const REPLAY_COUNT_HEADER = 'x-replay-count';

/** Spring Kafka's dead-letter headers, added to DLQ records with the `x+spring` header style (R10). */
export const SPRING_DLT_HEADERS = {
  originalTopic: 'kafka_dlt-original-topic',
  originalPartition: 'kafka_dlt-original-partition',
  originalOffset: 'kafka_dlt-original-offset',
  originalTimestamp: 'kafka_dlt-original-timestamp',
  originalConsumerGroup: 'kafka_dlt-original-consumer-group',
  exceptionFqcn: 'kafka_dlt-exception-fqcn',
  exceptionMessage: 'kafka_dlt-exception-message',
  exceptionStacktrace: 'kafka_dlt-exception-stacktrace',
} as const;

export type HeaderStyle = 'x' | 'x+spring';
export const HEADER_STYLES = ['x', 'x+spring'] as const;
