import { faultWorld } from './attack13-fault-world';
import type { FaultWorldOptions } from './attack13-fault-world';

/**
 * Found by the fresh-clone CI of session 40 (attack 13's order property at random seed
 * 1070699144, on Node 22): an ORDER case, no record lost. Here with the fault positions as the
 * fault world placed them (the shrunk counterexample printed them rounded, so it passed alone).
 *
 * Key A's replays 4 to 7 wait in the 1m tier of partition 1 behind A's main record, which fails
 * on. Replay 5 runs, fails once and takes A's hold (its copy to the 10m tier); the state with that
 * hold is stored, and the 1m tier commit after it, the one that says replay 5 was run, is refused
 * once. Replay 5's copy then ends its retry and replay 6, the next in turn, takes the hold: that
 * state is stored too, and a rebalance comes before the 1m tier commit that follows it.
 *
 * Seen: the 1m tier is read again from before replay 5, which no hold names any more: a fresh
 * replay to the state, it waits behind replay 6 and runs again after it ("replay 5's copy ran over
 * 6"): an older update applied over a newer one of its key.
 *
 * Class: a state stored over tier commits still owed. A replay's run is recorded by its tier's
 * commit alone (no hold judges a replay), and the broker held a state two operations on (replay 6's
 * hold) with a tier commit two operations back (replay 5 waiting).
 *
 * Fixed: a tier commit refused after its state was stored is owed (tier-turns.ts owe), and sent,
 * before the partition's next state, in a request of its own (key-parking.ts commit): the broker
 * never holds a state ahead of the tier commits of the state before it.
 */
const CASE = {
  ordering: 'park-by-key',
  reaction: 'kafkajs',
  partitions: 2,
  parkingBudgetBytes: 60,
  records: [
    { key: 'A', partition: 1, failures: 3 },
    { key: 'B', partition: 0, failures: 0 },
    { key: 'A', partition: 1, failures: 1 },
    { key: 'A', partition: 1, failures: 1 },
  ],
  replays: [
    { key: 'A', partition: 1, failures: 0 },
    { key: 'A', partition: 1, failures: 1 },
    { key: 'A', partition: 1, failures: 1 },
    { key: 'A', partition: 1, failures: 0 },
  ],
  faults: [
    { operation: 'commit', at: 0, times: 3, nonRetriable: true },
    { operation: 'commit', at: 13, times: 1, nonRetriable: false },
  ],
  events: [{ kind: 'rebalance', at: 79 }],
} satisfies FaultWorldOptions;

describe('park-by-key: a tier commit refused after its state was stored, then a rebalance after the next state', () => {
  it('runs no replay again after a newer record of its key, and loses none', async () => {
    const result = await faultWorld(CASE).run();
    expect(result.rebalances).toBe(1);
    expect(result.injected).toBe(4);
    expect(result.outOfOrder).toEqual([]);
    expect(result.lost).toEqual([]);
    expect(result.paused).toEqual([]);
  });
});
