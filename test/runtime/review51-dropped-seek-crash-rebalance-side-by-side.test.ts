import { expectEveryRecordsFate, withDroppedSeeks } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * The dropped-seeks property's counterexample at KRT_PROPERTY_SEED=5103 with
 * KRT_PROPERTY_RUNS=2000 (shrunk by fast-check): park-by-key on kafkajs, side by side, three
 * seeks dropped at a quarter of the run, a crash, a rebalance and two commits refused near the end.
 */
describe('review 51: seeks dropped around a crash and a rebalance, side by side', () => {
  it('lose no record, run none early, keep each key in order and leave no partition paused (dropped-seeks property, seed 5103)', async () => {
    const base: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      partitions: 2,
      records: [
        { key: 'B', partition: 0, failures: 2 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'C', partition: 1, failures: 0 },
        { key: 'B', partition: 0, failures: 1 },
      ],
      parkingBudgetBytes: 60,
      sideBySide: true,
    };
    const options = await withDroppedSeeks(base, [{ at: 0.25, times: 3 }], [{ operation: 'commit', at: 0.923077, times: 2, nonRetriable: true }], [
      { kind: 'rebalance', at: 0.862069 },
      { kind: 'crash', at: 0.293104 },
    ]);
    const result = await faultWorld(options).run();
    console.log(JSON.stringify({ faults: options.faults, events: options.events, lost: result.lost, early: result.early, paused: result.paused, outOfOrder: result.outOfOrder, duplicates: result.duplicates, stoppedForGood: result.stoppedForGood, injected: result.injected }));
    expectEveryRecordsFate(options, result);
  });
});
