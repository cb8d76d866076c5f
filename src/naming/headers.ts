/** The self-describing headers of retry and DLQ records (R9). */
export const HEADERS = {
  attempt: 'x-attempt',
  dueAt: 'x-due-at',
  firstFailedAt: 'x-first-failed-at',
  originalTopic: 'x-original-topic',
  originalPartition: 'x-original-partition',
  originalOffset: 'x-original-offset',
  /** The main-topic record's timestamp (epoch ms), so every original-* value describes that record. */
  originalTimestamp: 'x-original-timestamp',
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

/**
 * Which park-by-key state a tier record was written under: the id a main partition's state
 * takes when it begins from nothing (its group had no commit of the partition). Set on the
 * copy of a record whose key that state holds; passed through unchanged otherwise (it is not
 * one of HEADERS), so a retry of a log or a state that is gone stays known as such on every
 * hop and is never judged by the holds of a state that did not write it.
 */
export const PARK_STATE_HEADER = 'x-park-state';

/**
 * Spring Kafka's dead-letter headers, as its `DeadLetterPublishingRecoverer` writes them
 * on a dead-letter record (KafkaHeaders.DLT_*): added to DLQ records with the `x+spring`
 * header style (R10).
 */
export const SPRING_DLT_HEADERS = {
  originalTopic: 'kafka_dlt-original-topic',
  originalPartition: 'kafka_dlt-original-partition',
  originalOffset: 'kafka_dlt-original-offset',
  originalTimestamp: 'kafka_dlt-original-timestamp',
  originalConsumerGroup: 'kafka_dlt-original-consumer-group',
  exceptionFqcn: 'kafka_dlt-exception-fqcn',
  exceptionCauseFqcn: 'kafka_dlt-exception-cause-fqcn',
  exceptionMessage: 'kafka_dlt-exception-message',
  exceptionStacktrace: 'kafka_dlt-exception-stacktrace',
} as const;

/**
 * What Spring Kafka's `@RetryableTopic` writes on every retry-topic and DLT record: its
 * factory names the original-* and exception headers without the `dlt` prefix
 * (KafkaHeaders.ORIGINAL_*, EXCEPTION_*; the consumer group keeps Spring's own
 * `dlt-` name) and adds RetryTopicHeaders. Written with the `x+spring-retry-topic` style.
 */
export const SPRING_RETRY_TOPIC_HEADERS = {
  originalTopic: 'kafka_original-topic',
  originalPartition: 'kafka_original-partition',
  originalOffset: 'kafka_original-offset',
  originalTimestamp: 'kafka_original-timestamp',
  originalConsumerGroup: 'kafka_dlt-original-consumer-group',
  exceptionFqcn: 'kafka_exception-fqcn',
  exceptionCauseFqcn: 'kafka_exception-cause-fqcn',
  exceptionMessage: 'kafka_exception-message',
  exceptionStacktrace: 'kafka_exception-stacktrace',
  /** The main-topic record's timestamp, as Java's BigInteger.toByteArray(). */
  retryOriginalTimestamp: 'retry_topic-original-timestamp',
  /** The attempt the record is on at its destination, a 4-byte big-endian int. */
  retryAttempts: 'retry_topic-attempts',
  /** When the record is due (a DLT record: when it failed), as Java's BigInteger.toByteArray(). */
  retryBackoffTimestamp: 'retry_topic-backoff-timestamp',
} as const;

export type HeaderStyle = 'x' | 'x+spring' | 'x+spring-retry-topic';
export const HEADER_STYLES = ['x', 'x+spring', 'x+spring-retry-topic'] as const;

/**
 * The original record's trace context, kept under this prefix through every hop:
 * `x-original-traceparent` and `x-original-tracestate` with W3C trace context (any field
 * the registered propagator uses gets the prefix). A hop's own `traceparent` names the
 * attempt that published it; this copy, written at the first hop and passed through
 * after, lets every attempt link to the main-topic record's producer (docs/tracing.md).
 */
export const ORIGINAL_TRACE_CONTEXT_PREFIX = 'x-original-';

/**
 * The trace context of the attempt that published a tier or DLQ record:
 * `x-previous-traceparent`, `x-previous-tracestate`. The same as the record's own
 * `traceparent` when it is written, but a producer instrumentation (instrumentation-kafkajs's
 * send spans) replaces that one, and `krt dlq replay` may run under one: this copy keeps
 * the next attempt's link to the previous one exact.
 */
export const PREVIOUS_TRACE_CONTEXT_PREFIX = 'x-previous-';
