import fc from 'fast-check';
import { asyncPropertyRuns } from './fault-runs';
import { budget, event, expectEveryRecordsFate, fault, keys, PARTITIONS, placed, position, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Review 53: attack 12's widened replay property (attack12-widened-replays-property.test.ts)
 * with the replays' x-due-at drawn too (replayDueAfterMs: due before the main records are read,
 * while they are, or long after; and 0, an absurd header), and with rebalances and crashes more
 * often: aebebc4 orders a waiting replay against its key's parked records by x-due-at and their
 * timestamps. Small budgets as attack 12's. KRT_PROPERTY_RUNS / KRT_PROPERTY_SEED as ever.
 */
const PARAMETERS = asyncPropertyRuns(60);
jest.setTimeout(Math.max(300_000, PARAMETERS.numRuns! * 1_000));

const replays = fc.array(
  fc.record({ key: keys, failures: fc.constantFrom(0, 0, 1, 2, 3) }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { maxLength: 30 },
);

const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  replays,
  replayDueAfterMs: fc.constantFrom(-1_000_000, 0, 1, 50, 500, 5_000, 60_000, 600_000),
  faults: fc.array(fault, { maxLength: 8 }),
  events: fc.array(fc.oneof({ weight: 2, arbitrary: fc.record({ kind: fc.constant('rebalance' as const), at: position }) }, { weight: 2, arbitrary: event }), { maxLength: 8 }),
  parkingBudgetBytes: budget,
});

describe('review 53: park-by-key with replays due at any time against the main records, under faults, rebalances and crashes', () => {
  it('loses no record, runs none early, keeps each key in order, leaves no partition paused, and bounds duplicates', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, replays: s.replays, replayDueAfterMs: s.replayDueAfterMs, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults, s.events)) };
        const result = await faultWorld(options).run();
        expectEveryRecordsFate(options, result);
      }),
      PARAMETERS,
    );
  });
});
