import { decodeRetryHeaders } from './headers';
import { forgetRanReplays, markReplayRan, parkStateMetadata, retryIdOfReplay } from './park-state';
import type { ParkState, RanReplay } from './park-state';
import type { TopicPartitionOffset } from './port';
import type { ConsumedRecord } from './router';

/*
 * Park-by-key: the replays that ran, kept in the state until their tier's commit is stored
 * (ParkState.ranReplays). A replay's run is recorded by its tier's commit alone: no hold judges
 * a replay once its retry ended, or when it took none. With that commit lost (refused, and a
 * rebalance or a crash before it went again) and the state stored, the replay read again was a
 * fresh one to the state, and ran once more, in its turn as read then: after a newer record of
 * its key that it had run before (found by attack 25). The state is committed before the tier
 * commit, so whichever is lost, the replay's run is known.
 */

/** A record `krt dlq replay` wrote (x-replayed-from-dlq), first read in a tier. */
export const isReplay = (record: ConsumedRecord): boolean => decodeRetryHeaders(record.message.headers).replayedFromDlq === true;

/** The retry id of a replay, from where it was written and when (retryIdOfReplay). */
export const replayRetryId = (record: ConsumedRecord): string => retryIdOfReplay(record.topic, record.partition, record.message.offset, record.message.timestamp);

/** Where a replay of one of `tierTopics` was read; undefined for a record of no tier of theirs. */
function placeOf(record: ConsumedRecord, tierTopics: readonly string[]): RanReplay | undefined {
  const tier = tierTopics.indexOf(record.topic);
  return tier < 0 ? undefined : { tier, offset: BigInt(record.message.offset) };
}

/** Records that the keyed replay `record` ran under `state`; nothing for any other record. */
export function markRan(state: ParkState, record: ConsumedRecord, tierTopics: readonly string[]): void {
  const at = placeOf(record, tierTopics);
  if (at !== undefined && record.message.key !== null && isReplay(record)) markReplayRan(state, replayRetryId(record), at);
}

/** Whether `record` is a replay the state records as run: read again, it is skipped. */
export function ranBefore(state: ParkState, record: ConsumedRecord, tierTopics: readonly string[]): boolean {
  if (state.ranReplays === undefined || !isReplay(record)) return false;
  const at = state.ranReplays.get(replayRetryId(record));
  const here = placeOf(record, tierTopics);
  return at !== undefined && here !== undefined && at.tier === here.tier && at.offset === here.offset;
}

/** Forgets the ran replays that accepted tier commits passed: no read of this log brings them back. */
export function forgetCommittedPast(state: ParkState, tierTopics: readonly string[], accepted: readonly TopicPartitionOffset[]): void {
  const past = new Map(accepted.map((c) => [c.topic, BigInt(c.offset)]));
  forgetRanReplays(state, (at) => {
    const committed = past.get(tierTopics[at.tier] ?? '');
    return committed !== undefined && at.offset < committed;
  });
}

/**
 * At a load: forgets the ran replays below their tier's group commit (stored since), and those of
 * a tier with no commit or none of the consumer's (gone: a new log reads from its start, and its
 * records are not these).
 */
export function forgetBelowGroupCommits(state: ParkState, tierTopics: readonly string[], commits: readonly { topic: string; offset: string }[]): void {
  const group = new Map(commits.map((c) => [c.topic, BigInt(c.offset)]));
  forgetRanReplays(state, (at) => {
    const committed = group.get(tierTopics[at.tier] ?? '');
    return committed === undefined || at.offset < committed;
  });
}

/** Drops the ran replays from a state whose commit they would take over `bytes`: they cost order only, never a record. */
export function fitRanReplays(state: ParkState, bytes: number): void {
  if (state.ranReplays !== undefined && Buffer.byteLength(parkStateMetadata(state)) > bytes) forgetRanReplays(state, () => true);
}
