import type { ParkState } from './park-state';
import type { OffsetCommit } from './port';
import type { ConsumedRecord } from './router';
import type { SoughtBack } from './sought-back';
import type { TierTurns } from './tier-turns';

/** One main partition's park-by-key state as this process holds it, and what it read since it loaded. */
export interface PartitionParking {
  readonly state: ParkState;
  /** Parked records read since the state was loaded (after a restart, the re-read brings them back). */
  readonly records: Map<bigint, ConsumedRecord>;
  /** When this process saw each hold first (taken, or loaded: a restart never shortens a hold). */
  readonly heldSince: Map<string, number>;
  /**
   * The waiting tier records and tier commits of the generation that loaded this state.
   * Work started in a generation writes only to its own: finished after a rebalance, it
   * cannot raise the next generation's tier commits past a record that one has not run.
   */
  readonly turns: TierTurns;
  /**
   * Per tier topic, how far its partition p was handled when the state loaded (its commit's
   * metadata): records past the commit and below `below`, but the waiting ones, are done and
   * are skipped when read again. Dropped when a record comes below `from`: the log moved back.
   */
  readonly tierHandled: Map<string, TierHandled>;
  /** Per tier topic, the group's commit of its partition p when the state loaded (none: no commit). */
  readonly tierCommitted: ReadonlyMap<string, bigint>;
  /** Per tier topic, the last commit of its partition p accepted from this state (with its metadata): what it records, for now (ran-unjudged.ts coveredBy). */
  lastAcceptedTierCommits?: Map<string, OffsetCommit>;
  /** Tier records run unjudged since the state's last commit: known done (turns.knownDone) once the next is stored. */
  ranSinceCommit?: ConsumedRecord[];
  /** Per tier topic, the last record of its partition p read since the state loaded. */
  readonly tierRead: Map<string, ConsumedRecord>;
  /**
   * Since the state was loaded, or the main partition was sought, no record at or past the
   * position was taken: the client may read past records the state never took (a seek it
   * dropped), so a record past the position is taken only once a seek back confirms the gap.
   */
  soughtSinceTaken: boolean;
  /**
   * The seeks back that confirm what a record read past them says (sought-back.ts): to the
   * oldest parked record not in memory that a record read past it skipped (`gap`: the log no
   * longer has it), and to the position, because the first record since the load came past it
   * (`position`: the records between are gone).
   */
  soughtBack?: { readonly gap?: SoughtBack | undefined; readonly position?: SoughtBack | undefined };
  /**
   * The offset the next main record should come at or past: one past the last taken, or where
   * this parking sought. One before it was not read again by this parking: the partition moved
   * back under it (the topic deleted and created again with no rebalance, an offset reset).
   */
  next?: bigint;
}

/** A tier partition's handled position as its commit kept it (tier-commit-metadata.ts). */
export interface TierHandled {
  readonly from: bigint;
  readonly below: bigint;
  readonly waiting: ReadonlySet<bigint>;
  /** The timestamp of the record at `from`; `verified` once the record read there has it (this log's). */
  readonly firstTimestamp: bigint;
  /** The record at `from` is done too: the commit was anchored on the last record done. */
  readonly fromDone: boolean;
  verified: boolean;
}
