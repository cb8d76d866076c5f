import { committedOffsetOf } from './park-state';
import type { PartitionParking, TierHandled } from './partition-parking';
import type { ParkingBudget } from './parking-budget';
import type { OffsetCommit } from './port';
import type { ConsumedRecord } from './router';
import { decodeTierCommit, fitTierCommit } from './tier-commit-metadata';
import type { TierCommit, TierTurns } from './tier-turns';

/*
 * How far each tier partition p is handled, kept in its commit's metadata beside the offset
 * (tier-commit-metadata.ts), so that a rebalance or a restart runs again none of the records
 * done behind one that waits its turn: read at load, anchored on a record whose timestamp tells
 * this log's from another's, and written with every tier commit.
 */

/**
 * What the tiers' commits of p say was handled, per tier topic (none for a commit that keeps no
 * position); believed at once when this generation read its anchor (a reload after a failed
 * operation: the partition is not read again from the commit).
 */
export function tierHandledOf(partition: number, commits: readonly { topic: string; offset: string; metadata?: string | null }[], turns: TierTurns): Map<string, TierHandled> {
  const handled = new Map<string, TierHandled>();
  for (const c of commits) {
    const from = BigInt(c.offset);
    const fields = decodeTierCommit(from, c.metadata);
    if (fields.handledBelow === undefined || fields.firstTimestamp === undefined) continue;
    const verified = turns.isAnchored(c.topic, partition, from, fields.firstTimestamp);
    handled.set(c.topic, { from, below: fields.handledBelow, waiting: new Set(fields.waiting), firstTimestamp: fields.firstTimestamp, fromDone: fields.firstDone === true, verified });
  }
  return handled;
}

/**
 * A tier record read again that its commit says was done (past the commit, below the handled
 * position, not one that waited its turn): committed without running. Only once the first
 * record read is the one at the commit's offset, with the timestamp the commit kept: else
 * (a record below the commit, or below one read before it, another record at the
 * commit's offset, the one there gone to retention) the log moved back (the tier deleted
 * and created again, its offsets reset), the record comes again, or which records are this
 * log's cannot be told: the kept position is dropped, and what is read from then on runs, or
 * is judged, as before.
 */
export function doneBeforeLoad(parking: PartitionParking, record: ConsumedRecord): boolean {
  const offset = BigInt(record.message.offset);
  const before = parking.tierRead.get(record.topic);
  parking.tierRead.set(record.topic, record);
  const handled = parking.tierHandled.get(record.topic);
  if (handled === undefined) return false;
  // The record at the commit's offset must be this log's (its timestamp), whenever it is read
  // (read again: a held record sought back to), before any record is skipped.
  if (offset === handled.from) {
    handled.verified = timestampOfRecord(record) === handled.firstTimestamp;
    if (handled.verified) parking.turns.anchored(record.topic, record.partition, offset, handled.firstTimestamp);
  }
  if (!handled.verified || offset < handled.from || (before !== undefined && offset < BigInt(before.message.offset))) {
    parking.tierHandled.delete(record.topic);
    return false;
  }
  const past = offset > handled.from || (offset === handled.from && handled.fromDone);
  return past && offset < handled.below && !handled.waiting.has(offset);
}

/** A record's timestamp as the tier commit keeps it, or undefined for one that is not a timestamp. */
function timestampOfRecord(record: ConsumedRecord): bigint | undefined {
  return /^\d+$/.test(record.message.timestamp) ? BigInt(record.message.timestamp) : undefined;
}

/**
 * The record a tier commit at `offset` anchors its kept position on, to tell this log's from
 * another's when read again: one waiting there, the one the load named there, or else the
 * last record read, just below and done (the commit then stays on it, marked done: while a
 * kept position's records are skipped, the next record is not read yet). None: no position.
 */
function anchorOf(parking: PartitionParking, topic: string, offset: bigint, waitingRecords: readonly ConsumedRecord[], loaded: TierHandled | undefined): { offset: bigint; timestamp: bigint; done: boolean } | undefined {
  const first = waitingRecords.find((r) => BigInt(r.message.offset) === offset);
  const stamped = (record: ConsumedRecord, done: boolean) => {
    const timestamp = timestampOfRecord(record);
    return timestamp === undefined ? undefined : { offset: BigInt(record.message.offset), timestamp, done };
  };
  if (first !== undefined) return stamped(first, false);
  if (loaded?.from === offset) return { offset, timestamp: loaded.firstTimestamp, done: loaded.fromDone };
  const last = parking.tierRead.get(topic);
  return last !== undefined && BigInt(last.message.offset) === offset - 1n ? stamped(last, true) : undefined;
}

/** A tier commit the broker stored with a kept position: its anchor was read by this generation. */
export function anchoredBy(turns: TierTurns, c: OffsetCommit): void {
  const fields = decodeTierCommit(BigInt(c.offset), c.metadata);
  if (fields.handledBelow !== undefined && fields.firstTimestamp !== undefined) turns.anchored(c.topic, c.partition, BigInt(c.offset), fields.firstTimestamp);
}

/**
 * A tier commit with what it keeps (tier-commit-metadata.ts): the state's id (after
 * stateCommit fitted it), for a state lost later to take back; and how far the tier
 * partition is handled, with the records still waiting their turn, so that a rebalance
 * runs again none of the records done behind a waiting one. The position the commit
 * loaded with counts until this generation has read past it.
 */
export function withTierMetadata(parking: PartitionParking, tierCommit: TierCommit, budget: ParkingBudget): OffsetCommit {
  const { handledBelow: handled, ...commit } = tierCommit;
  const offset = BigInt(commit.offset);
  const loaded = parking.tierHandled.get(commit.topic);
  const below = loaded !== undefined && (handled === undefined || loaded.below > handled) ? loaded.below : handled;
  const waitingRecords = parking.turns.waitingAt(commit.topic, commit.partition);
  const waiting = [...waitingRecords.map((r) => BigInt(r.message.offset)), ...[...(loaded?.waiting ?? [])].filter((w) => handled === undefined || w >= handled)];
  const { state } = parking;
  budget.fitId(state); // a budget too low for the id and one hold costs the id here too, or this commit is refused for it
  const kept = { ...(state.id === undefined ? {} : { id: state.id }), mainCommitted: committedOffsetOf(state), waiting };
  // Only a position past the commit is worth an anchor: a commit one past the last record done keeps none.
  const anchor = below === undefined || below <= offset ? undefined : anchorOf(parking, commit.topic, offset, waitingRecords, loaded);
  if (anchor !== undefined) {
    const metadata = fitTierCommit(anchor.offset, { ...kept, handledBelow: below!, firstTimestamp: anchor.timestamp, firstDone: anchor.done }, budget.bytes);
    // Cut to no position by the budget, the commit is not worth keeping one record back for.
    if (metadata !== undefined && decodeTierCommit(anchor.offset, metadata).handledBelow !== undefined) return { ...commit, offset: anchor.offset.toString(), metadata };
  }
  const metadata = fitTierCommit(offset, kept, budget.bytes);
  return metadata === undefined ? commit : { ...commit, metadata };
}
