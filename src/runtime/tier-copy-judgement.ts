import { parkStateHeaderValue, parkStateReadable, retryIdOf } from './headers';
import { keyHash, NO_STATE_ID, retryIdOfReplay } from './park-state';
import type { ParkState } from './park-state';
import { isReplay } from './ran-unjudged';
import { decodeOrigin } from './record-origin';
import type { ConsumedRecord } from './router';

/*
 * How park-by-key judges a tier record against main partition p's state: its key's current
 * retry, a stale copy, or a record no hold can judge (unproven, replayed, damaged), and where
 * it holds its key if it goes on. Pure: the state and the record decide (key-parking.ts acts).
 */

/**
 * A tier record the state cannot judge: its main record came before the offset where the
 * partition's state was found lost, before a give-up's mark (its record may be a given-up
 * one), or before a shed's mark while its key is not held by a hold the shed kept, so its
 * key's hold may have been lost or given up. It runs as a
 * replayed record does (its turn if the key is busy); a copy of a record read again since
 * is judged by the hold as ever.
 */
export function unproven(state: ParkState, original: bigint | undefined, hash: string, retryId?: string): boolean {
  if (original === undefined) return false;
  // A replayed record's retry: reading the main topic again never makes it again, so once the
  // state was lost or gave up holds, a copy of one its hold is not in may be one it lost (found
  // by session 37's review: a replay's hold at or past the committed offset, shed or lost, and
  // its copy skipped as stale).
  if (retryId !== undefined && (state.lostBefore !== undefined || state.shedBefore !== undefined) && state.retryIds?.get(hash) !== retryId) return true;
  if (state.lostBefore !== undefined && original < state.lostBefore) return true;
  // Below a give-up's mark no hold judges: the copy may be a given-up record's, all that is left of it (ParkState.givenUpBefore).
  if (givenUpBelow(state, original)) return true;
  // A hold in the shed's range is one the shed kept (no record there takes a hold: holdOffsetOf): it judges its key as ever.
  const hold = state.held.get(hash);
  return state.shedBefore !== undefined && original < state.shedBefore && !(hold !== undefined && inShedRange(state, hold));
}

/** Below the mark of a give-up: a parked record there may have been given up (ParkState.givenUpBefore). */
export const givenUpBelow = (state: ParkState, original: bigint) => state.givenUpBefore !== undefined && original < state.givenUpBefore;

/**
 * The parked record a tier record is a copy of, if it is one: written under this state, not
 * replayed, of a record the state has parked under its key. A parked record never ran under
 * the state, so its copy is from a run whose state was never committed.
 */
export function copyOfParked(state: ParkState, record: ConsumedRecord, hash: string, original: bigint | undefined, foreign: boolean): bigint | undefined {
  return !foreign && original !== undefined && !isReplay(record) && state.parked.get(original) === hash ? original : undefined;
}

/** Below the mark of a shed and not below a lost state's: the holds there were whole until the shed. */
function inShedRange(state: ParkState, offset: bigint): boolean {
  return state.shedBefore !== undefined && offset < state.shedBefore && (state.lostBefore === undefined || offset >= state.lostBefore);
}

/**
 * A tier record the hold cannot judge a stale copy: replayed from the DLQ, unproven, or
 * without a readable original offset (a hand-produced or corrupted record: skipped, it would
 * be lost without running). One written under another state is not judged either (onTierRecord).
 */
export function unjudged(state: ParkState, record: ConsumedRecord, original: bigint | undefined): boolean {
  const hash = keyHash(record.message.key);
  return original === undefined || isReplay(record) || damagedPastReplayHold(state, record, hash, original) || unproven(state, original, hash, retryIdOf(record.message.headers));
}

/**
 * A copy whose PARK_STATE_HEADER does not read, past its key's hold when a replayed record's
 * retry holds it: that retry holds short of its copies' offset (at the position), so only the
 * retry id the damage took could tell its copy from a stale one of another retry. Skipped as
 * stale, the retry's copy was lost (attack 19); taken for the retry, a stale copy released the
 * live retry's hold and its copy was then lost (attack 20). It runs unjudged in its turn: it
 * releases no hold, and a retry whose last copy it was keeps its key until the hold expires.
 */
function damagedPastReplayHold(state: ParkState, record: ConsumedRecord, hash: string, original: bigint | undefined): boolean {
  const holder = state.held.get(hash);
  return !parkStateReadable(record.message.headers) && state.retryIds?.has(hash) === true && holder !== undefined && original !== undefined && original > holder;
}

/**
 * Whether a copy is its key's retry by the hold's retry id: both none (a main record's retry),
 * or the same. A header that is there and unreadable (damaged) proves nothing: the offset alone
 * decides, as it did before retry ids, rather than skip the copy as stale.
 */
function sameRetry(state: ParkState, record: ConsumedRecord, hash: string): boolean {
  return !parkStateReadable(record.message.headers) || retryIdOf(record.message.headers) === state.retryIds?.get(hash);
}

/**
 * The retry id of the hold a tier record takes if it goes on to a later tier while it is not its
 * key's current retry: a replayed record's own (from where it was written), else the one its
 * record carries (the copy of a replayed record's retry whose hold this state cannot judge).
 */
export const retryIdTakenBy = (record: ConsumedRecord): string | undefined =>
  isReplay(record) ? retryIdOfReplay(record.topic, record.partition, record.message.offset, record.message.timestamp) : retryIdOf(record.message.headers);

/**
 * Where a tier record not judged by a hold holds its key if it goes on to a later tier, or
 * undefined when it may take no hold: one written under another state, or without a readable
 * original offset, takes none. With an original offset below the position, at that offset. A
 * replayed record's retry (it has a retry id) with one at or past the position, at the
 * position (`@0` in the state): its copies are known by the retry id (isCurrentRetry). Without a
 * hold, newer records of its key ran between its hops and a stale copy of it, read again after a
 * refused commit, ran over them (attack 13's order property); held a record back from the
 * position, it could take none at position 0 or in a shed's range, so one run of it went unheld
 * and a later run held, and the unheld copy ran over its key's newer records (attack 19). Any
 * other copy carries NO_STATE_ID, so every later hop runs it unjudged too (a record written under
 * another state, or a main record's retry from past the position, which is read again: judged
 * by the holds, its next copy would be skipped as stale and lost).
 */
export function holdOffsetOf(state: ParkState, foreign: boolean, original: bigint | undefined, retryId: string | undefined): bigint | undefined {
  if (foreign || original === undefined) return undefined;
  if (original >= state.position) return retryId === undefined ? undefined : state.position;
  // Below a shed's mark a hold must be one the shed kept (unproven): a record there whose hold was given up takes none again.
  return inShedRange(state, original) ? undefined : original;
}

/**
 * Whether a tier copy is its key's current retry: it carries the retry id of its key's hold (a
 * replayed record's retry, whose id no other retry shares: whatever state its copy was written
 * under, NO_STATE_ID included, and wherever the hold is: a replay past the position holds its
 * key short of its own offset, holdOffsetOf), or, written under this state, it is at the hold's
 * offset with the hold's retry id, none for a main record's retry (sameRetry). Found by attack
 * 19: a replay run first where it could take no hold (position 0) and again after a refused
 * commit, holding: its first copy carried only NO_STATE_ID, ran unjudged after the retry ended,
 * and landed over its key's newer record.
 */
export function isCurrentRetry(state: ParkState, record: ConsumedRecord, hash: string, original: bigint | undefined, foreign: boolean): boolean {
  const holder = state.held.get(hash);
  if (holder === undefined || original === undefined) return false;
  const retryId = retryIdOf(record.message.headers);
  if (retryId !== undefined && retryId === state.retryIds?.get(hash)) return true;
  return !foreign && original === holder && sameRetry(state, record, hash);
}

/**
 * The PARK_STATE_HEADER of a copy no hold of this state judges (a record written under another
 * state, a replay that could take no hold, a hold that did not fit): NO_STATE_ID, so every later
 * hop runs it unjudged, with the retry id of a replayed record's retry, so the hold that retry
 * takes on a later run knows it as its own (isCurrentRetry).
 */
export const unheldCopyId = (retryId: string | undefined): string | undefined => parkStateHeaderValue(NO_STATE_ID, retryId);

/** The main-topic offset a tier record stands for, from whichever layout carries it (ours or Spring's). */
export function originalOffsetOf(record: ConsumedRecord): bigint | undefined {
  const offset = decodeOrigin(record.message.headers)?.offset;
  return offset === undefined ? undefined : BigInt(offset);
}
