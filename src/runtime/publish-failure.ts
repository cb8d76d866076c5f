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

/**
 * The broker refused the record's timestamp as out of the topic's accepted range
 * (`message.timestamp.before.max.ms` / `after.max.ms`): INVALID_TIMESTAMP (32), librdkafka's
 * ERR_INVALID_TIMESTAMP.
 */
const TIMESTAMP_REFUSED = /INVALID_TIMESTAMP|timestamp of the message is out of acceptable range|invalid timestamp/i;

export function isTimestampRefused(error: unknown): boolean {
  return errorChain(error).some((e) => {
    const { name, message } = describeError(e);
    const type = safeField(e, 'type') ?? safeField(e, 'apiId');
    const code = safeField(e, 'code');
    return TIMESTAMP_REFUSED.test(`${name} ${message} ${String(type ?? '')} ${String(code ?? '')}`) || (isProtocolError(e) && (code === 32 || code === 'INVALID_TIMESTAMP'));
  });
}

const UNKNOWN_PARTITION = /unknown.?partition|UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/i;

export function publishFailureReason(error: unknown): PublishFailureReason {
  // A client may wrap the broker's answer (@platformatic/kafka: an AggregateError whose `errors`
  // hold the protocol error; others: `cause`): every error of the chain is read.
  const chain = errorChain(error);
  for (const reason of ['unknown-partition', 'not-authorized', 'too-large', 'timeout'] as const) {
    if (chain.some((e) => reasonOf(e) === reason)) return reason;
  }
  return 'other';
}

function reasonOf(error: unknown): PublishFailureReason {
  const { name, message } = describeError(error);
  const type = safeField(error, 'type') ?? safeField(error, 'apiId');
  const text = `${name} ${message} ${String(type ?? '')} ${String(safeField(error, 'code') ?? '')}`;
  if (error instanceof UnknownPartitionError || UNKNOWN_PARTITION.test(text)) return 'unknown-partition';
  if (/authori[sz]/i.test(text)) return 'not-authorized';
  if (TOO_LARGE.test(text) || (type !== undefined && TOO_LARGE_CODES.has(type)) || (isProtocolError(error) && TOO_LARGE_CODES.has(safeField(error, 'code')))) return 'too-large';
  if (/time(d)?.?out/i.test(text)) return 'timeout';
  return 'other';
}

/** The error, its `cause` and the `errors` of an aggregate, depth first, a few levels deep and each once. */
function errorChain(error: unknown, depth = 0, seen = new Set<unknown>()): unknown[] {
  if (seen.has(error) || depth > 4) return [];
  seen.add(error);
  const nested = [safeField(error, 'cause'), ...innerErrors(error)].filter((e) => e !== undefined && e !== null);
  return [error, ...nested.flatMap((e) => errorChain(e, depth + 1, seen))];
}

/** The `errors` of an aggregate, the first few; none when reading them throws. */
function innerErrors(error: unknown): unknown[] {
  try {
    const inner = safeField(error, 'errors');
    return Array.isArray(inner) ? inner.slice(0, 16) : [];
  } catch {
    return [];
  }
}

/** A broker error code is a number only on a protocol error: a Node error's `code` names a system call's failure. */
function isProtocolError(error: unknown): boolean {
  const { name } = describeError(error);
  return /Protocol|Kafka|LibrdKafka/i.test(name);
}
