import { faultWorld } from './attack13-fault-world';
import type { FaultWorldOptions } from './attack13-fault-world';
import { expectEveryRecordsFate } from './fault-scenarios';

/**
 * Found by attack 19's property (seed 32, 400 runs) on the first version of the runs a state
 * records (ran-unjudged.ts): an ORDER case, with the fault positions as the fault world placed
 * them. The broker's metadata limit is lowered to 77 bytes at the start; the state holding two
 * replays' retries and naming the two replays' runs was refused as too large, and the refusal
 * was read as the size of the state without the runs, which the broker would have kept: the
 * budget came down under it, a shed gave up a hold, and a copy ran over a newer record of its
 * key ("A: record 0's copy 10m/1@2 ran over 3").
 *
 * Fixed: a state refused as too large with the runs it records goes again at once without them,
 * the budget taught the size actually sent (key-parking.ts commitState).
 */
const CASE = {
  ordering: 'park-by-key',
  reaction: 'kafkajs',
  records: [{ key: 'A', partition: 1, failures: 2 }],
  replays: [
    { key: 'C', partition: 1, failures: 2 },
    { key: 'A', partition: 1, failures: 2 },
    { key: 'A', partition: 1, failures: 0 },
    { key: 'C', partition: 1, failures: 1 },
  ],
  replayDueAfterMs: 0,
  replayNames: 'other-key',
  parkingBudgetBytes: 160,
  partitions: 2,
  faults: [{ operation: 'commit', at: 2, times: 1, nonRetriable: false }],
  events: [{ kind: 'metadata-limit-lowered', at: 0 }],
  loweredMetadataLimitBytes: [77, 40],
} satisfies FaultWorldOptions;

describe('park-by-key under a lowered metadata limit, a state refused for the runs it records', () => {
  it('keeps every key in order and loses no record', async () => {
    const result = await faultWorld(CASE).run();
    expect(result.metadataLimitsLowered).toBe(1);
    expect(result.outOfOrder).toEqual([]);
    expectEveryRecordsFate(CASE, result, 'kept-but-where-lost');
  });
});
