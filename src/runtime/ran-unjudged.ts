import { createHash } from 'node:crypto';
import { decodeRetryHeaders } from './headers';
import { recordIdentity } from './record-identity';
import { forgetRanUnjudged, markRanUnjudged, parkStateMetadata } from './park-state';
import type { ParkState, RanUnjudged } from './park-state';
import type { OffsetCommit, TopicPartitionOffset } from './port';
import { decodeTierCommit } from './tier-commit-metadata';
import type { ConsumedRecord } from './router';

/*
 * Park-by-key: the tier records that ran unjudged, kept in the state until their tier's commit
 * is stored (ParkState.ranUnjudged). A record no hold judges (a replay from the DLQ, a copy from
 * before a lost state or a shed, one written under another state, one without a readable
 * original offset) has its run recorded by its tier's commit alone. With that commit lost
 * (refused, and a rebalance or a crash before it went again) and the state stored, the record
 * read again ran once more, in its turn as read then: after a newer record of its key that it
 * had run before (found by attacks 25 and 27). The state is committed before the tier commit,
 * so whichever is lost, the run is known.
 */

/** A record `krt dlq replay` wrote (x-replayed-from-dlq), first read in a tier. */
export const isReplay = (record: ConsumedRecord): boolean => decodeRetryHeaders(record.message.headers).replayedFromDlq === true;

/**
 * A tier record's run id: where it was written, when, and what it is (its key and value, as
 * record-identity.ts tells records apart), so a tier created again, whose offsets start over,
 * names another record at the same offset and millisecond another (attack 28).
 */
export const runIdOf = (record: ConsumedRecord): string =>
  createHash('sha256').update(`${record.topic}\u0000${record.partition}\u0000${recordIdentity(record.message)}`).digest('base64url').slice(0, 6);

/** Where a record of one of `tierTopics` was read; undefined for a record of no tier of theirs. */
function placeOf(record: ConsumedRecord, tierTopics: readonly string[]): RanUnjudged | undefined {
  const tier = tierTopics.indexOf(record.topic);
  return tier < 0 ? undefined : { tier, offset: BigInt(record.message.offset) };
}

/** Records that the keyed tier record `record`, which no hold judged, ran under `state`. */
export function markRan(state: ParkState, record: ConsumedRecord, tierTopics: readonly string[]): void {
  const at = placeOf(record, tierTopics);
  if (at !== undefined && record.message.key !== null) markRanUnjudged(state, runIdOf(record), at);
}

/**
 * A copy of `state` to measure, with `record`'s run recorded as markRan() would, and without the
 * runs another commit records for now (`covered`): those go first when room is short
 * (fitRanUnjudged). `state` is unchanged.
 */
export function withRun(state: ParkState, record: ConsumedRecord, tierTopics: readonly string[], covered: Covered = () => false): ParkState {
  const measured: ParkState = { ...state, ranUnjudged: state.ranUnjudged === undefined ? undefined : new Map(state.ranUnjudged) };
  forgetRanUnjudged(measured, covered);
  markRan(measured, record, tierTopics);
  return measured;
}

/** Whether the state records `record` as run: read again, it is skipped. */
export function ranBefore(state: ParkState, record: ConsumedRecord, tierTopics: readonly string[]): boolean {
  if (state.ranUnjudged === undefined) return false;
  const at = state.ranUnjudged.get(runIdOf(record));
  const here = placeOf(record, tierTopics);
  return at !== undefined && here !== undefined && at.tier === here.tier && at.offset === here.offset;
}

/** Forgets the runs that accepted tier commits passed: no read of this log brings those records back. */
export function forgetCommittedPast(state: ParkState, tierTopics: readonly string[], accepted: readonly TopicPartitionOffset[]): void {
  const past = new Map(accepted.map((c) => [c.topic, BigInt(c.offset)]));
  forgetRanUnjudged(state, (at) => {
    const committed = past.get(tierTopics[at.tier] ?? '');
    return committed !== undefined && at.offset < committed;
  });
}

/** Whether a run (its tier, its offset there) is recorded elsewhere for now (coveredBy). */
export type Covered = (at: RanUnjudged) => boolean;

/**
 * The runs the last accepted commit of each tier partition records past its offset, in the
 * position its metadata keeps (tier-commit-metadata.ts: behind a record waiting its turn, the
 * records that ran are skipped when read again). For now only: a later commit may keep less (cut
 * to the budget, paid as its offset alone, an anchor gone), so such names are never forgotten
 * for it (found by attack 29), only the first to go when the state has no room for them.
 */
export function coveredBy(lastAccepted: ReadonlyMap<string, OffsetCommit>, tierTopics: readonly string[]): Covered {
  const recorded = new Map([...lastAccepted].map(([topic, commit]) => [topic, recordedRuns(commit)]));
  return (at) => recorded.get(tierTopics[at.tier] ?? '')?.(at.offset) === true;
}

/** Whether the tier commit `commit` records the record at `offset` as done. */
function recordedRuns(commit: OffsetCommit): (offset: bigint) => boolean {
  const offset = BigInt(commit.offset);
  const kept = decodeTierCommit(offset, commit.metadata);
  const waiting = new Set(kept.waiting);
  return (at) => at < offset || (kept.handledBelow !== undefined && at < kept.handledBelow && !waiting.has(at) && (at > offset || kept.firstDone === true));
}

/**
 * At a load: forgets the runs below their tier's group commit (stored since), and those of a
 * tier with no commit or none of the consumer's (gone: a new log reads from its start, and its
 * records are not these).
 */
export function forgetBelowGroupCommits(state: ParkState, tierTopics: readonly string[], commits: readonly { topic: string; offset: string }[]): void {
  const group = new Map(commits.map((c) => [c.topic, BigInt(c.offset)]));
  forgetRanUnjudged(state, (at) => {
    const committed = group.get(tierTopics[at.tier] ?? '');
    return committed === undefined || at.offset < committed;
  });
}

/**
 * Drops the runs from a state whose commit they would take over `bytes`: first those another
 * commit records for now (`covered`), then all. They cost order only, never a record.
 */
export function fitRanUnjudged(state: ParkState, bytes: number, covered: Covered = () => false): void {
  const over = () => state.ranUnjudged !== undefined && Buffer.byteLength(parkStateMetadata(state)) > bytes;
  if (over()) forgetRanUnjudged(state, covered);
  if (over()) forgetRanUnjudged(state, () => true);
}
