import { faultWorld } from './fault-world';
import type { PlannedRecord } from './fault-world';

/*
 * Found by the state-lost property of test/runtime/faults.test.ts run longer
 * (KRT_PROPERTY_RUNS=3000, seed -110155426), placed at the steps and calls it chose.
 *
 * Record 0 (key A, partition 1) is lost. Its copy in the 1m tier came due after the first
 * loss while A was held by record 2, so it waited its turn (in memory; the tier's commit
 * held at 0 for it). Then record 3's copy (tier offset 2, not due) was fetched and the tier
 * pipeline's wait path paused its partition (src/runtime/tier-pipeline.ts onRecord: pause,
 * then seek back to the record); the pause was refused, and the second loss's rebalance
 * came in that very call. The refusal was thrown to the client for a record the rebalance
 * had already taken again, and the Confluent client seeks back to a record whose handler
 * threw: the tier partition went on from offset 2 instead of its commit, 0. Record 0's
 * copy, forgotten by the rebalance, never came again; record 3's copy then committed the
 * tier past it.
 *
 * The class is the one 85fb8d3 fixed in key parking (unlessTakenAgain), left in the tier
 * pipeline's wait path: a pause refused because the client is rejoining is the usual case.
 */
describe('attack: park-by-key state lost twice, with a tier pause refused as the second loss rebalances', () => {
  it.failing('loses no record', async () => {
    const records: PlannedRecord[] = [
      { key: 'A', partition: 1, failures: 2 },
      { key: 'B', partition: 0, failures: 0 },
      { key: 'A', partition: 1, failures: 3 },
      { key: 'A', partition: 1, failures: 1 },
      { key: 'B', partition: 0, failures: 0 },
      { key: 'A', partition: 1, failures: 0 },
    ];
    const result = await faultWorld({
      ordering: 'park-by-key',
      reaction: 'confluent',
      partitions: 2,
      records,
      parkingBudgetBytes: 77,
      faults: [{ operation: 'pause', at: 0, times: 4, nonRetriable: false }],
      events: [
        { kind: 'state-lost', at: 7 },
        { kind: 'state-lost', at: 40 },
      ],
    }).run();
    expect(result.statesLost).toBe(2);
    expect(result.lost).toEqual([]);
  });
});
