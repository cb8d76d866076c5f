import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * Found by attack 13 (a partition that loops forever: a stall, two records never reach their
 * fate), by the widened lossy property of attack12-widened-replays-property.test.ts at
 * KRT_PROPERTY_SEED=1301, KRT_PROPERTY_RUNS=3000 (failed after 2,060 cases; shrunk to this
 * case). Not caused by today's changes: the same case stalls at d4de591, before them.
 *
 * Scenario (main partition 1, key A; the Confluent client's reaction to a throw): a DLQ record
 * of A is replayed into the 1m tier and fails on into the 10m tier, taking no hold; A's record
 * 1 fails (A held), records 2 and 3 park behind it. A crash. The new process reads the state
 * (record 3 parked, not in memory yet) and the replay's 10m copy, which waits its turn behind
 * record 3 (keyWaits: a parked record of A). Record 3 is read again and runs, fails (A held at
 * 3), and the broker's offset.metadata.max.bytes comes down to 31: the commit is refused, the
 * budget lowered to 32, and the stored state shed (park-state-shed at 3): record 3 is to run
 * again, no hold dropped.
 *
 * Seen: the replay stays in the generation's turns, A free and nothing parked; record 3, read
 * again at the position, finds A waiting (turns.waits) and parks behind the replay; a state
 * with one parked record is over 31 bytes, the commit is refused, the state read again (not
 * shed again: the empty stored state is under the refused size), record 3 read again and
 * parked again: 2,001 steps of `parked orders.confirmed-1@3` and a StallError; record 3 and
 * the replay never reach their fate.
 *
 * Code at fault: src/runtime/key-parking.ts load(): after a shed, drainFreeKeys() runs only
 * when `shed.holdsDropped > 0`; a shed that only drops parked records (to run them again)
 * leaves a waiting turn whose key is now free with nothing to run it, and onMainRecord parks a
 * new record behind that turn (keyWaits) without draining it. The reversed order (the replay
 * waited behind record 3; record 3 now waits behind the replay) then also meets the budget.
 *
 * Class: a wake-up tied to one kind of state change (a hold released), missed by another that
 * frees the key too (parked records shed).
 *
 * Fixed: every load drains the waiting turns of keys the loaded state does not hold
 * (key-parking.ts load), whatever freed them: a shed that dropped holds, or only a parked record.
 */
jest.setTimeout(60_000);

describe('park-by-key, a shed that drops a parked record a replay waited behind', () => {
  it('runs the replay and the record, instead of parking the record behind the replay forever', async () => {
    const options: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'confluent',
      records: [
        { key: 'A', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 2 },
        { key: 'A', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 3 },
        { key: 'B', partition: 0, failures: 1 },
      ],
      replays: [{ key: 'A', partition: 1, failures: 3 }],
      parkingBudgetBytes: 160,
      partitions: 2,
      events: [
        { kind: 'crash', at: 59 },
        { kind: 'metadata-limit-lowered', at: 66 },
      ],
      loweredMetadataLimitBytes: 31,
      faults: [],
    };
    // Seen: StallError, 2,001 steps in a row without progress (`parked orders.confirmed-1@3`).
    const result = await faultWorld(options).run();
    expect(result.lost).toEqual([]);
  });
});
