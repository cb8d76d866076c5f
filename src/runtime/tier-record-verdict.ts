import { parkStateIdOf } from './headers';
import { keyHash, writtenUnderAnotherState } from './park-state';
import type { ParkingBudget } from './parking-budget';
import type { PartitionParking } from './partition-parking';
import { keyWaits, roomMayCome } from './parked-records';
import { coveredBy, isReplay, withRun } from './ran-unjudged';
import type { ConsumedRecord } from './router';
import { copyOfParked, givenUpBelow, holdOffsetOf, isCurrentRetry, originalOffsetOf, retryIdTakenBy, unjudged } from './tier-copy-judgement';

/*
 * What park-by-key does with a tier record of main partition p, once it is known not to be done
 * already (key-parking.ts onTierRecord acts on the verdict). p's state, its waiting turns, the
 * budget and the record decide. Not quite pure: asking the budget for room (roomForRun) may drop
 * the state's id when the budget came down below it, as the next state commit would (found by
 * the mutation run of session 55).
 */

export type TierRecordVerdict =
  /** A copy of a record the state has parked, which never ran: it waits right behind that record. */
  | { readonly kind: 'waits-behind-its-record'; readonly hash: string; readonly original: bigint }
  /** A stale copy: its key's retry ended or a later record holds the key. Skipped. */
  | { readonly kind: 'stale' }
  /** Its key is busy, or the state has no room for the hold it may take: it waits its turn behind `behind`. */
  | { readonly kind: 'waits-its-turn'; readonly hash: string; readonly behind: bigint }
  /** It runs now. */
  | {
      readonly kind: 'runs';
      readonly hash: string;
      readonly keyless: boolean;
      /** The key's current retry, which keeps the key's hold. */
      readonly current: boolean;
      /** Where it holds its key if it is not the current retry and goes on to a later tier (none: it takes no hold). */
      readonly holdAt: bigint | undefined;
      /** Whether the hold fits the budget (its copies then carry the state's id). */
      readonly fits: boolean;
      /** The retry id of the hold it keeps or takes. */
      readonly retryId: string | undefined;
    };

export interface TierRecordFacts {
  readonly parking: PartitionParking;
  readonly record: ConsumedRecord;
  /** The record was held back by the tier pipeline (its turn came): judged as a copy no more. */
  readonly held: boolean;
  readonly tierTopics: readonly string[];
  readonly budget: ParkingBudget;
}

export function judgeTierRecord({ parking, record, held, tierTopics, budget }: TierRecordFacts): TierRecordVerdict {
  const { state } = parking;
  const keyless = record.message.key === null;
  const hash = keyHash(record.message.key);
  const original = originalOffsetOf(record);
  /** The retry id of the hold this record takes if it is not its key's current retry. */
  const takenRetryId = retryIdTakenBy(record);
  // Written under another state (a log deleted since, offsets expired): its original offset
  // may name a record of another log, so no hold of this state is its.
  const foreign = writtenUnderAnotherState(state, parkStateIdOf(record.message.headers));
  // Without a readable original offset a record is nobody's current retry: it releases no hold.
  // Nor is a replay: its own retry ended in the DLQ, and a hold at its offset is another
  // chain's (the record read again and failing anew, or another log's record at that offset:
  // found by attack 13, a replay released that hold and the chain's own copy was lost).
  // And a copy is its key's current retry only with the hold's retry id (none for a main
  // record's retry): two retries can share a key and an offset (found in session 37: a
  // replay's copy read again after a refused tier commit released another replay's hold,
  // whose own copy was then skipped as stale and lost).
  const current = !isReplay(record) && isCurrentRetry(state, record, hash, original, foreign);
  const holdAt = current ? undefined : holdOffsetOf(state, foreign, original, takenRetryId);
  // Not the current retry, it runs unjudged, and the state names its run: room for the name too (roomForRun).
  const room = current || keyless ? 'room' : budget.roomForRun(state, withRun(state, record, tierTopics, coveredBy(parking.lastAcceptedTierCommits ?? new Map(), tierTopics)), hash, holdAt, takenRetryId, roomMayCome(parking));
  if (!keyless && !current && !held) {
    if (copyOfParked(state, record, hash, original, foreign) !== undefined) {
      // A copy of a record the state has parked, which never ran under it: the copy is from a
      // run whose state never got committed (a crash between the copy and the commit). The
      // record runs again in its turn, so the copy may be a duplicate; but retention may take
      // the record first (found by attack 21: skipped as stale, the copy was its only carrier).
      return { kind: 'waits-behind-its-record', hash, original: original! };
    }
    // A replayed record whose own retry holds its key is that retry's record read again (a
    // rebalance or a refused commit before its tier commit): run again, it applied its update
    // a second time after its key's newer records (found by attack 13's order property).
    // A stale copy (redelivered, or published again after a crash or a refused commit) would
    // apply an older update over a newer one.
    const stale = !foreign && (!unjudged(state, record, original) || (isReplay(record) && state.retryIds?.get(hash) === takenRetryId));
    if (stale) return { kind: 'stale' };
    if (keyWaits(record.partition, parking, hash) || room === 'wait') {
      // A copy from below a give-up's mark waits in its record's place: the record may be the given-up one (found by attack 23).
      const behind = original !== undefined && givenUpBelow(state, original) ? original + 1n : state.position;
      return { kind: 'waits-its-turn', hash, behind };
    }
  }
  // The current retry keeps its key's hold; any other record may take one only as holdOffsetOf() says.
  // Keyless records hold nothing: their copies are never judged by a hold.
  const retryId = current ? state.retryIds?.get(hash) : takenRetryId;
  const fits = current || keyless || (holdAt !== undefined && room === 'room' && budget.holdFits(state, hash, holdAt, retryId));
  return { kind: 'runs', hash, keyless, current, holdAt, fits, retryId };
}
