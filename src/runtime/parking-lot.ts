import type { ConsumedRecord } from './router';

/**
 * For `park-by-key` ordering (R15): the keys with a record in retry, and the later
 * records of those keys, held in arrival order until the retry ends.
 */
export interface ParkingLot {
  /** Whether a record of this key is in retry (so later ones must wait). */
  isHeld(key: string): Promise<boolean>;
  /** A record of this key entered the retry tiers. */
  hold(key: string): Promise<void>;
  /** A later record of a held key waits behind it. */
  park(key: string, record: ConsumedRecord): Promise<void>;
  /** The key's retry ended (success or DLQ): returns its parked records, oldest first, and forgets the key. */
  release(key: string): Promise<ConsumedRecord[]>;
}

/** A parking lot in memory: for the simulator and for tests; it does not survive a restart. */
export function memoryParkingLot(): ParkingLot {
  const held = new Map<string, ConsumedRecord[]>();
  return {
    isHeld: async (key) => held.has(key),
    hold: async (key) => {
      if (!held.has(key)) held.set(key, []);
    },
    park: async (key, record) => {
      held.set(key, [...(held.get(key) ?? []), record]);
    },
    release: async (key) => {
      const parked = held.get(key) ?? [];
      held.delete(key);
      return parked;
    },
  };
}
