import type { PublishFailureReason } from './publish-failure';
import type { RoutedDestination, ConsumedRecord } from './router';

/** What the retrying consumer did, for logs, tests and the simulator's timeline. */
export type RetryEvent =
  | { readonly type: 'processed'; readonly record: ConsumedRecord; readonly attempt: number; readonly parked: boolean }
  | { readonly type: 'failed-in-place'; readonly record: ConsumedRecord; readonly attempt: number; readonly error: unknown; readonly waitMs: number }
  | { readonly type: 'routed'; readonly record: ConsumedRecord; readonly attempt: number; readonly error: unknown; readonly destination: RoutedDestination }
  /** A background commit failed; its offsets go out with the next one (or their records run again). */
  | { readonly type: 'commit-failed'; readonly error: unknown }
  /**
   * A publish to a tier or the DLQ failed; the record stays uncommitted and is published
   * again in `retryInMs` (with `unknown-partition`, an unordered consumer's next try
   * leaves the partition to the default partitioner).
   */
  | { readonly type: 'publish-failed'; readonly record: ConsumedRecord; readonly error: unknown; readonly retryInMs: number; readonly destination: RoutedDestination; readonly reason: PublishFailureReason }
  /**
   * The DLQ refused even the trimmed copy of `record` as too large (its tier's copy too, if
   * it had one): the record is held, uncommitted, and its partition takes no later record;
   * its publish is tried at the longest backoff (each refusal a `publish-failed` with reason
   * `too-large`). Raise the DLQ's `max.message.bytes`, or fix and skip the record by hand.
   */
  | { readonly type: 'publish-held'; readonly record: ConsumedRecord; readonly error: unknown; readonly destination: RoutedDestination }
  | { readonly type: 'waiting'; readonly topic: string; readonly partition: number; readonly dueAt: number }
  /**
   * A tier partition resumed at the record it waited for found another record at its offset:
   * the tier was deleted and created again while it waited (its offsets start over), so the
   * partition is read again from the new log's start (`offset`: where the other record was).
   * `by: 'topic-id'`: a record read anywhere named another topic id than the partition was read
   * under (where the client tells ids).
   */
  | { readonly type: 'tier-log-recreated'; readonly topic: string; readonly partition: number; readonly offset: string; readonly by?: 'topic-id' }
  | { readonly type: 'parked'; readonly record: ConsumedRecord; readonly key: string }
  | { readonly type: 'unparked'; readonly record: ConsumedRecord; readonly key: string }
  /** Park-by-key: a copy of a tier record whose key's retry had ended or moved on (redelivered, published again after a crash); committed, not run. */
  | { readonly type: 'stale-tier-record'; readonly record: ConsumedRecord; readonly key: string }
  /**
   * Park-by-key: a key held longer than its tier record can take to arrive (the path through
   * the tiers plus their retention) is released; its parked records run. `offset`: the main
   * record whose retry held it.
   */
  | { readonly type: 'hold-expired'; readonly topic: string; readonly partition: number; readonly offset: string; readonly heldMs: number }
  /**
   * Park-by-key: the group's commit of a main partition (at `offset`) carries no state
   * (`metadata: 'none'`: an offset reset, a client that commits without metadata) or one
   * the runtime did not write (`'unreadable'`: truncated, foreign, trailing bytes). Main
   * records from `offset` on run again, and tier records from before it run unless their
   * key's hold proves them stale: duplicates, and the records of keys then in retry may
   * run out of order.
   */
  | { readonly type: 'park-state-lost'; readonly topic: string; readonly partition: number; readonly offset: string; readonly metadata: 'none' | 'unreadable' }
  /**
   * Park-by-key: the state stored in the group's commit of main partition `partition` is over
   * what the broker keeps now (`budgetBytes`: its `offset.metadata.max.bytes` was lowered
   * under the state, or `parkingBudgetBytes` was), so it was shed to a state that fits,
   * committed at once: main records from `offset` (the oldest parked record) up to `rerunTo`
   * run again (the handled once more, the parked in turn), and `holdsDropped` keys in retry
   * are no longer held: their newer records may run before their retries, which still run.
   */
  | { readonly type: 'park-state-shed'; readonly topic: string; readonly partition: number; readonly offset: string; readonly rerunTo: string; readonly holdsDropped: number; readonly budgetBytes: number }
  /**
   * Park-by-key: the broker refused a commit of main partition `partition`'s state as too
   * large (OFFSET_METADATA_TOO_LARGE: its `offset.metadata.max.bytes` is below the budget),
   * so every partition's state is kept within `budgetBytes` from now on (below the
   * `refusedBytes` sent; `configuredBytes` is `parkingBudgetBytes`). Partitions then pause at
   * fewer keys in retry. Raise the broker's limit, or lower `parkingBudgetBytes` to it.
   */
  | { readonly type: 'parking-budget-lowered'; readonly topic: string; readonly partition: number; readonly budgetBytes: number; readonly refusedBytes: number; readonly configuredBytes: number }
  /**
   * Park-by-key: after enough commits accepted at a lowered budget, the configured budget is
   * tried again (`budgetBytes`), in case the broker's limit was raised; a refusal lowers it
   * again, as the first did.
   */
  | { readonly type: 'parking-budget-raised'; readonly topic: string; readonly budgetBytes: number; readonly loweredBytes: number }
  /**
   * Park-by-key: the partition's state cannot take the hold of a record gone on to a tier
   * within what the broker keeps (`budgetBytes`; the state with that hold takes `neededBytes`):
   * not even alone, or beside parked records while nothing is held (no release can make room).
   * So `key` (the main record at `offset`, a tier record's original) is not held while it is in
   * retry: its newer records may run before the retry. The partition goes on rather than pause
   * for good. Raise the broker's `offset.metadata.max.bytes`.
   */
  | { readonly type: 'parking-hold-skipped'; readonly topic: string; readonly partition: number; readonly offset: string; readonly key: string; readonly budgetBytes: number; readonly neededBytes: number }
  /**
   * Park-by-key: records parked behind their keys' retries (at `offsets` of main partition
   * `partition`) were deleted from the main topic before they could be read again: the
   * partition, read from `from`, has no record before `to` (retention, a delete-records
   * request or compaction took them; a consumer lagging near the topic's retention parks
   * records retention is about to take). They never run; their keys go on with their newer
   * records. Keep the main topic's retention well past the consumer's lag and its ladder.
   */
  | { readonly type: 'parked-records-deleted'; readonly topic: string; readonly partition: number; readonly offsets: readonly string[]; readonly from: string; readonly to: string }
  /** Park-by-key state of a main partition reached its commit-metadata budget: the partition waits for a key's retry to end. */
  | { readonly type: 'parking-full'; readonly topic: string; readonly partition: number; readonly keys: number; readonly parked: number };

export type RetryEventListener = (event: RetryEvent) => void;
