import fc from 'fast-check';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns } from './fault-runs';
import { budget, expectEveryRecordsFate, keys, nonRetriable, PARTITIONS, placed, position, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Attack 13: a widened copy of attack 12's replay property, for what today's changes touched
 * (the kept tier position through its skips, the replay mark on every copy, tier commits
 * recorded once accepted): many replays that fail on, commits refused far more often than
 * other operations (once or a few times in a row), rebalances and crashes. The strict checks
 * of the main property: no record lost, none early, each key in order, no partition paused,
 * duplicates within the bound.
 *
 * Bounded so that `npm test` stays fast (KRT_PROPERTY_RUNS raises it, KRT_PROPERTY_SEED picks
 * the seed).
 */
const PARAMETERS = asyncPropertyRuns(60);
jest.setTimeout(Math.max(300_000, PARAMETERS.numRuns! * 1_000));

const replays = fc.array(
  fc.record({ key: keys, failures: fc.constantFrom(0, 1, 1, 2, 3) }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { maxLength: 30 },
);
/** Commits refused most of the time: where today's changes record progress before or after the broker's answer. */
const operation = fc.oneof({ weight: 4, arbitrary: fc.constant('commit' as const) }, { weight: 1, arbitrary: fc.constantFrom(...PORT_OPERATIONS) });
const fault = fc.record({ operation, at: position, times: fc.integer({ min: 1, max: 3 }), nonRetriable });
const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  replays,
  faults: fc.array(fault, { maxLength: 10 }),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'rebalance' as const, 'crash' as const), at: position }), { maxLength: 6 }),
  parkingBudgetBytes: budget,
});

describe('attack 13: park-by-key with replays that fail on, under refused commits, rebalances and crashes', () => {
  it('loses no record, runs none early, keeps each key in order, leaves no partition paused, and bounds duplicates', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, replays: s.replays, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults, s.events)) };
        const result = await faultWorld(options).run();
        expectEveryRecordsFate(options, result);
      }),
      PARAMETERS,
    );
  });
});
