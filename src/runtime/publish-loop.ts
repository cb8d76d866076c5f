import type { PublishOptions } from './destination-record';
import { isTimestampRefused, publishFailureReason } from './publish-failure';
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
  /**
   * The copy was refused as too large even trimmed: switch to the next destination (a tier's
   * copy goes to the DLQ) and say true, or false when there is none left (the DLQ refused).
   */
  readonly redirect?: () => boolean;
  /** The DLQ refused even the trimmed copy: the record now waits, tried at the longest backoff. */
  readonly onHeld?: () => void;
  /**
   * The record was held before (its copy trimmed, its destination the last one): it is sent
   * trimmed at once and, refused, stays held without a second onHeld.
   */
  readonly held?: boolean;
}

/**
 * Publishes until the broker acknowledges. Building the record never throws, so what
 * fails here is the producer: the broker refused or did not answer. Those failures are
 * retried with capped exponential backoff (the record stays uncommitted, never lost); a
 * partition the destination lacks is left to the default partitioner when allowed.
 * A tier copy whose timestamp (the failure's time) the topic refuses as too old is sent at
 * once without it: the producer stamps it, and `x-due-at` still says when it is due.
 *
 * A copy refused as too large is refused again as it is: it is sent at once without the
 * failure's text, then (a tier's) to the DLQ; refused there too, the record is held, tried
 * at the longest backoff in case the topic's limit is raised, each refusal reported.
 */
export async function publishUntilAcknowledged<T>(options: PublishLoopOptions<T>): Promise<T> {
  let wait = options.backoff.initialMs;
  let defaultPartitioner = false;
  let trimmed = options.held === true;
  let held = options.held === true;
  let unstamped = false;
  for (;;) {
    try {
      return await options.publish({ defaultPartitioner, trimmed, ...(unstamped ? { unstamped } : {}) });
    } catch (error) {
      const reason = publishFailureReason(error);
      const repartition = reason === 'unknown-partition' && options.mayRepartition && !defaultPartitioner;
      // A tier copy keeps the failure's time as its timestamp; a topic with
      // message.timestamp.before.max.ms refuses it once retries took longer, and would forever.
      const restamp = !unstamped && isTimestampRefused(error);
      let next = repartition || restamp;
      if (restamp) unstamped = true;
      if (reason === 'too-large' && !held) {
        if (!trimmed) trimmed = true;
        else if (!options.redirect?.()) {
          held = true;
          options.onHeld?.();
        }
        next = !held;
      }
      const retryInMs = held ? options.backoff.maxMs : next ? 0 : wait;
      options.onFailure({ error, reason, retryInMs });
      if (repartition) defaultPartitioner = true;
      await options.wait(retryInMs);
      if (!next) wait = Math.min(options.backoff.maxMs, wait * 2);
    }
  }
}
