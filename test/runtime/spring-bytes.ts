/**
 * Headers exactly as spring-kafka 4.1 writes them, built byte by byte from its source
 * (DeadLetterRecordManager, DeadLetterPublishingRecovererFactory), not with our encoders,
 * so a test that reads them checks our decoders against Spring's layout and not against
 * themselves.
 */

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int64 = (n: bigint | number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
/** Java's BigInteger.valueOf(n).toByteArray(): the shortest big-endian two's complement. */
export function javaBigInteger(n: number): Buffer {
  let hex = BigInt(n).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  return Buffer.from(hex, 'hex');
}

export interface SpringFailedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly group: string;
}

const EXCEPTION = 'org.springframework.kafka.listener.ListenerExecutionFailedException';
const CAUSE = 'java.lang.IllegalStateException';

/**
 * What `@RetryableTopic` writes on the record it sends from the main topic to its first
 * retry topic: the `kafka_original-*` headers of the main record (and the group in
 * Spring's `kafka_dlt-original-consumer-group`), the exception, and RetryTopicHeaders.
 */
export function springRetryTopicHeaders(main: SpringFailedRecord, attempts: number, backoffTimestamp: number): Record<string, Buffer> {
  return {
    'kafka_exception-fqcn': Buffer.from(EXCEPTION),
    'kafka_exception-cause-fqcn': Buffer.from(CAUSE),
    'kafka_exception-message': Buffer.from('Listener failed; boom'),
    'kafka_exception-stacktrace': Buffer.from(`${EXCEPTION}: Listener failed\n\tat ...`),
    'kafka_original-topic': Buffer.from(main.topic),
    'kafka_original-partition': int32(main.partition),
    'kafka_original-offset': int64(main.offset),
    'kafka_original-timestamp': int64(main.timestamp),
    'kafka_original-timestamp-type': Buffer.from('CreateTime'),
    'kafka_dlt-original-consumer-group': Buffer.from(main.group),
    'retry_topic-original-timestamp': javaBigInteger(main.timestamp),
    'retry_topic-attempts': int32(attempts),
    'retry_topic-backoff-timestamp': javaBigInteger(backoffTimestamp),
  };
}

/** What Spring's DeadLetterPublishingRecoverer writes on a dead-letter record (a DefaultErrorHandler's recoverer). */
export function springDltHeaders(failed: SpringFailedRecord): Record<string, Buffer> {
  return {
    'kafka_dlt-exception-fqcn': Buffer.from(EXCEPTION),
    'kafka_dlt-exception-cause-fqcn': Buffer.from(CAUSE),
    'kafka_dlt-exception-message': Buffer.from('Listener failed; boom'),
    'kafka_dlt-exception-stacktrace': Buffer.from(`${EXCEPTION}: Listener failed\n\tat ...`),
    'kafka_dlt-original-topic': Buffer.from(failed.topic),
    'kafka_dlt-original-partition': int32(failed.partition),
    'kafka_dlt-original-offset': int64(failed.offset),
    'kafka_dlt-original-timestamp': int64(failed.timestamp),
    'kafka_dlt-original-timestamp-type': Buffer.from('CreateTime'),
    'kafka_dlt-original-consumer-group': Buffer.from(failed.group),
  };
}
