import { describeError, safeField } from './describe-error';

/** Why a publish to a tier or the DLQ failed: the `reason` label of `kafka_retry_publish_failures_total`. */
export type PublishFailureReason = 'unknown-partition' | 'not-authorized' | 'timeout' | 'other';
export const PUBLISH_FAILURE_REASONS: readonly PublishFailureReason[] = ['unknown-partition', 'not-authorized', 'timeout', 'other'];

/** The destination topic has no partition of the record's number (kafkajs would drop such a record silently). */
export class UnknownPartitionError extends Error {
  override name = 'KafkaRetryUnknownPartitionError';
  constructor(readonly topic: string, readonly partition: number) {
    super(`${topic} has no partition ${partition}: grow the retry and DLQ topics with the main topic`);
  }
}

const UNKNOWN_PARTITION = /unknown.?partition|UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/i;

export function publishFailureReason(error: unknown): PublishFailureReason {
  const { name, message } = describeError(error);
  const text = `${name} ${message} ${String(safeField(error, 'type') ?? '')} ${String(safeField(error, 'code') ?? '')}`;
  if (error instanceof UnknownPartitionError || UNKNOWN_PARTITION.test(text)) return 'unknown-partition';
  if (/authori[sz]/i.test(text)) return 'not-authorized';
  if (/time(d)?.?out/i.test(text)) return 'timeout';
  return 'other';
}
