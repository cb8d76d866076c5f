import type { ParkState } from './park-state';
import type { PartitionParking } from './partition-parking';

/* What one main partition has parked, as park-by-key asks it: which parked records are not in memory, and the oldest. */

/** Whether a record of key `hash` must wait: the key is held, has records parked, or has a tier record waiting its turn. */
export function keyWaits(partition: number, { state, turns }: PartitionParking, hash: string): boolean {
  return state.held.has(hash) || [...state.parked.values()].includes(hash) || turns.waits(partition, hash);
}

/** Whether room may still come to a state: a key is held (its release makes room) or a parked record is still to be read again (its run does). */
export function roomMayCome(parking: PartitionParking): boolean {
  return parking.state.held.size > 0 || oldestMissing(parking) !== undefined;
}

/** The parked records from `from` up to `to` that are not in memory, oldest first. */
export function parkedMissingBetween({ state, records }: PartitionParking, from: bigint, to: bigint): bigint[] {
  return [...state.parked.keys()].filter((offset) => offset >= from && offset < to && !records.has(offset)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The oldest parked record of the partition not in memory (after a reload, until the re-read brings it back). */
export function oldestMissing({ state, records }: PartitionParking): bigint | undefined {
  return oldestOf([...state.parked.keys()].filter((offset) => !records.has(offset)));
}

/** The lowest of `offsets`, or undefined when there are none. */
export function oldestOf(offsets: bigint[]): bigint | undefined {
  return offsets.reduce<bigint | undefined>((min, o) => (min === undefined || o < min ? o : min), undefined);
}

/** `state` as it is once its parked record at `offset` has run (what a hold is measured against). */
export function withoutParked(state: ParkState, offset: bigint): ParkState {
  const parked = new Map(state.parked);
  parked.delete(offset);
  return { ...state, parked };
}
