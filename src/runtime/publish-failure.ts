import { describeError, safeField } from './describe-error';

/** Why a publish to a tier or the DLQ failed: the `reason` label of `kafka_retry_publish_failures_total`. */
export type PublishFailureReason = 'unknown-partition' | 'not-authorized' | 'timeout' | 'too-large' | 'other';
export const PUBLISH_FAILURE_REASONS: readonly PublishFailureReason[] = ['unknown-partition', 'not-authorized', 'timeout', 'too-large', 'other'];

/** The destination topic has no partition of the record's number (kafkajs would drop such a record silently). */
export class UnknownPartitionError extends Error {
  override name = 'KafkaRetryUnknownPartitionError';
  constructor(readonly topic: string, readonly partition: number) {
    super(`${topic} has no partition ${partition}: grow the retry and DLQ topics with the main topic`);
  }
}

/**
 * The copy is larger than the destination keeps (`max.message.bytes`, the producer's
 * request limit): kafkajs's MESSAGE_TOO_LARGE (10) and RECORD_LIST_TOO_LARGE (18),
 * librdkafka's MSG_SIZE_TOO_LARGE. Sent again as it is, it is refused again: never transient.
 */
const TOO_LARGE = /MESSAGE_TOO_LARGE|RECORD_LIST_TOO_LARGE|MSG_SIZE_TOO_LARGE|message size too large|larger than the max message size/i;
const TOO_LARGE_CODES = new Set<unknown>([10, 18, 'MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'ERR_MSG_SIZE_TOO_LARGE']);

const UNKNOWN_PARTITION = /unknown.?partition|UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/i;

export function publishFailureReason(error: unknown): PublishFailureReason {
  const { name, message } = describeError(error);
  const text = `${name} ${message} ${String(safeField(error, 'type') ?? '')} ${String(safeField(error, 'code') ?? '')}`;
  if (error instanceof UnknownPartitionError || UNKNOWN_PARTITION.test(text)) return 'unknown-partition';
  if (/authori[sz]/i.test(text)) return 'not-authorized';
  if (TOO_LARGE.test(text) || (safeField(error, 'type') !== undefined && TOO_LARGE_CODES.has(safeField(error, 'type'))) || (isProtocolError(error) && TOO_LARGE_CODES.has(safeField(error, 'code')))) return 'too-large';
  if (/time(d)?.?out/i.test(text)) return 'timeout';
  return 'other';
}

/** A broker error code is a number only on a protocol error: a Node error's `code` names a system call's failure. */
function isProtocolError(error: unknown): boolean {
  const { name } = describeError(error);
  return /Protocol|Kafka|LibrdKafka/i.test(name);
}
