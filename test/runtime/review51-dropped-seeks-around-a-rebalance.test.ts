import { expectEveryRecordsFate, withDroppedSeeks } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * The dropped-seeks property's counterexample at KRT_PROPERTY_SEED=5106 with
 * KRT_PROPERTY_RUNS=2000 (shrunk by fast-check): park-by-key on kafkajs, one after the other (not
 * side by side), no other fault: two runs of four seeks dropped and one rebalance. A's second
 * record is never run.
 */
describe('review 51: seeks dropped around a rebalance', () => {
  it('lose no record of a key whose first record fails three times (dropped-seeks property, seed 5106)', async () => {
    const base: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      partitions: 2,
      records: [
        { key: 'A', partition: 1, failures: 3 },
        { key: 'A', partition: 1, failures: 2 },
      ],
      parkingBudgetBytes: 60,
      sideBySide: false,
    };
    const options = await withDroppedSeeks(base, [{ at: 0.428572, times: 4 }, { at: 0.142858, times: 4 }], [], [{ kind: 'rebalance', at: 0.392858 }]);
    const result = await faultWorld(options).run();
    console.log(JSON.stringify({ faults: options.faults, events: options.events, lost: result.lost, paused: result.paused, outOfOrder: result.outOfOrder, injected: result.injected }));
    expectEveryRecordsFate(options, result);
  });
});
