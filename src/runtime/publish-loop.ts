import type { PublishOptions } from './destination-record';
import { publishFailureReason } from './publish-failure';
import type { PublishFailureReason } from './publish-failure';

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
