import { committedOffsetOf, emptyParkState, parkStateMetadata, releaseHold, takeHold } from './park-state';
import type { ParkState } from './park-state';

/** A stored state shed to a budget it was over: what took its place, and what that costs. */
export interface ShedParkState {
  /** At the stored commit's offset, with the holds that fit; it parks nothing. */
  readonly state: ParkState;
  /** Holds given up: their keys' newer records may run before their retries. */
  readonly holdsDropped: number;
  /** Main records from `state.position` up to here (the old position) run again: the handled once more, the parked in turn. */
  readonly rerunTo: bigint;
}

/**
 * The state the broker can keep in place of a stored one over `budgetBytes` (its
 * `offset.metadata.max.bytes` was lowered under it, or the configured budget was), or
 * undefined when the stored one fits. Without it every operation of the partition needs a
 * commit about as large as the stored state, each is refused, and the same record runs
 * again without end (found by attack 9).
 *
 * Nothing is lost, by construction of what is kept: the position moves back to the
 * committed offset (the oldest parked record), so every parked record, and every record
 * after it, is read again and taken as the lost-state path takes it; holds of records below
 * that offset are kept oldest first while the state fits (the first that does not fit gives
 * up the rest), and the holds given up move `shedBefore` past their records, so their tier
 * copies run as ones from before a lost state do, never skipped as stale, while the holds
 * kept (all below the mark) still judge their keys' copies. A hold at or past the offset is
 * dropped: its record is read again; a replayed record's retry there is not, so it sets the
 * mark (at the new position, if none), under which its copies run unjudged.
 */
export function shedToFit(stored: ParkState, budgetBytes: number): ShedParkState | undefined {
  // An empty state has nothing to shed: a budget under it costs the id (fitId), never a record.
  if (bytesOf(stored) <= budgetBytes || (stored.held.size === 0 && stored.parked.size === 0)) return undefined;
  const withId = shedHolds(stored, budgetBytes);
  if (stored.id === undefined || withId.holdsDropped === 0) return withId;
  // As fitId rules: a budget too low for the id and a hold costs the id, never a hold (found by attack 11).
  const { id: _id, ...withoutId } = stored;
  const shed = shedHolds(withoutId, budgetBytes);
  return shed.holdsDropped < withId.holdsDropped ? shed : withId;
}

function shedHolds(stored: ParkState, budgetBytes: number): ShedParkState {
  const position = committedOffsetOf(stored);
  const state: ParkState = emptyParkState(position);
  if (stored.id !== undefined) state.id = stored.id;
  // A mark past the new position would be a negative distance: the records up to it are read again anyway.
  if (stored.lostBefore !== undefined) state.lostBefore = stored.lostBefore < position ? stored.lostBefore : position;
  if (stored.shedBefore !== undefined) state.shedBefore = stored.shedBefore < position ? stored.shedBefore : position;
  if (stored.givenUpBefore !== undefined) state.givenUpBefore = stored.givenUpBefore < position ? stored.givenUpBefore : position;
  const below = [...stored.held].filter(([, offset]) => offset < position).sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
  let holdsDropped = stored.held.size - below.length;
  // A replayed record's retry at or past the offset is not read again with the main records: a
  // mark says holds were given up, so its copies run unjudged (tier-copy-judgement.ts unproven).
  if ([...stored.held.keys()].some((hash) => stored.held.get(hash)! >= position && stored.retryIds?.has(hash))) state.shedBefore ??= position;
  /** Gives up a hold: the mark moves past its record, so its tier copy runs rather than be skipped as stale. */
  const drop = (hash: string, offset: bigint) => {
    releaseHold(state, hash);
    holdsDropped++;
    if (state.shedBefore === undefined || state.shedBefore <= offset) state.shedBefore = offset + 1n;
  };
  // The oldest holds while they fit; from the first that does not, none: every hold kept is below the mark.
  let fitting = true;
  for (const [hash, offset] of below) {
    if (fitting) {
      takeHold(state, hash, offset, stored.retryIds?.get(hash));
      fitting = bytesOf(state) <= budgetBytes;
      if (fitting) continue;
    }
    drop(hash, offset);
  }
  // A mark taken for the dropped holds can make the kept ones too large: give up the newest until it fits.
  while (bytesOf(state) > budgetBytes && state.held.size > 0) drop(...[...state.held].reduce((newest, hold) => (hold[1] > newest[1] ? hold : newest)));
  return { state, holdsDropped, rerunTo: stored.position };
}

const bytesOf = (state: ParkState) => Buffer.byteLength(parkStateMetadata(state));
