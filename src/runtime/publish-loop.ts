import { describeError, safeField } from './describe-error';
import type { PublishOptions } from './router';

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

export interface PublishLoopOptions<T> {
  readonly publish: (options: PublishOptions) => Promise<T>;
  /**
   * May the record leave its partition when the destination has no such partition?
   * Unordered consumers: yes, the default partitioner picks one. Park-by-key needs tier
   * partition p for main partition p: no, it waits for the topics to be grown.
   */
  readonly mayRepartition: boolean;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  /** Waits between tries; rejects when the consumer stops (the record stays uncommitted). */
  readonly wait: (ms: number) => Promise<void>;
  readonly onFailure: (failure: { error: unknown; reason: PublishFailureReason; retryInMs: number }) => void;
}

/**
 * Publishes until the broker acknowledges. Building the record never throws, so what
 * fails here is the producer: the broker refused or did not answer. Those failures are
 * retried with capped exponential backoff (the record stays uncommitted, never lost); a
 * partition the destination lacks is left to the default partitioner when allowed.
 */
export async function publishUntilAcknowledged<T>(options: PublishLoopOptions<T>): Promise<T> {
  let wait = options.backoff.initialMs;
  let defaultPartitioner = false;
  for (;;) {
    try {
      return await options.publish({ defaultPartitioner });
    } catch (error) {
      const reason = publishFailureReason(error);
      const repartition = reason === 'unknown-partition' && options.mayRepartition && !defaultPartitioner;
      const retryInMs = repartition ? 0 : wait;
      options.onFailure({ error, reason, retryInMs });
      if (repartition) defaultPartitioner = true;
      await options.wait(retryInMs);
      if (!repartition) wait = Math.min(options.backoff.maxMs, wait * 2);
    }
  }
}
