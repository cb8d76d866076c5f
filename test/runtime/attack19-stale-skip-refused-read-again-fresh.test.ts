import { faultWorld } from './attack13-fault-world';
import type { FaultWorldOptions } from './attack13-fault-world';
import { expectEveryRecordsFate } from './fault-scenarios';

/**
 * Found by attack 19's property (seed 42, 400 runs) in session 41; it fails on a7b51a0 too. An
 * ORDER case under a parking budget of 60 bytes, with no room for the state to name a record's
 * run (ran-unjudged.ts). Replay 3 takes A's hold and its 1m tier commit is refused; a rebalance.
 * The new generation reads replay 3 again and judges it stale (its own retry holds A), but the
 * commit of that skip is refused too and the operation fails. The replay's copy then ends the
 * retry, main record 1 takes A's hold, and replay 3, delivered again, is judged anew: a fresh
 * replay now, it waits its turn and runs after record 1 ("replay 3's copy ran over 1").
 *
 * Fixed: a record judged done (stale, skipped) or run unjudged with its state stored is known
 * done for the rest of the generation (tier-turns.ts knownDone): read again, it is skipped.
 */
const CASE = {
  ordering: 'park-by-key',
  reaction: 'kafkajs',
  records: [
    { key: 'A', partition: 1, failures: 2 },
    { key: 'A', partition: 1, failures: 2 },
    { key: 'A', partition: 1, failures: 2 },
  ],
  replays: [
    { key: 'A', partition: 1, failures: 1 },
    { key: 'A', partition: 1, failures: 2 },
  ],
  replayDueAfterMs: 0,
  replayNames: 'other-key',
  parkingBudgetBytes: 60,
  partitions: 2,
  faults: [
    { operation: 'commit', at: 7, times: 1, nonRetriable: false },
    { operation: 'commit', at: 5, times: 1, nonRetriable: false },
  ],
  events: [
    { kind: 'rebalance', at: 41 },
  ],
  loweredMetadataLimitBytes: [40, 40],
} satisfies FaultWorldOptions;

describe('park-by-key with no room to name a run: a replay judged stale whose skip commit is refused, read again after its key moved on', () => {
  it('is skipped again, not run after the newer record of its key', async () => {
    const result = await faultWorld(CASE).run();
    expect(result.rebalances).toBe(1);
    expect(result.outOfOrder).toEqual([]);
    expectEveryRecordsFate(CASE, result, 'kept-but-where-lost');
  });
});
