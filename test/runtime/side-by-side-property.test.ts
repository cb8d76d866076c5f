import fc from 'fast-check';
import { asyncPropertyRuns, expectEnoughCasesHit } from './fault-runs';
import { budget, event, expectEveryRecordsFate, fault, PARTITIONS, placed, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * The fault property with records delivered as the real clients deliver them: several
 * partitions' eachMessage calls at once, one per partition. Under park-by-key a main record
 * and a tier record of one partition then wait for each other on the partition's lock, and a
 * seek or a load one of them makes lands while the other is in hand; one record at a time, as
 * the other properties run, never meets that.
 */
const PARAMETERS = asyncPropertyRuns(150);
const RUNS = PARAMETERS.numRuns!;
jest.setTimeout(Math.max(300_000, RUNS * 1_000));

const scenario = fc.record({
  ordering: fc.constantFrom('unordered' as const, 'park-by-key' as const, 'park-by-key' as const),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  faults: fc.array(fault, { maxLength: 6 }),
  events: fc.array(event, { maxLength: 3 }),
  parkingBudgetBytes: budget,
});

describe('records delivered side by side, several partitions at once', () => {
  it('lose none, run none early, keep each key in order, leave no partition paused and bound duplicates, under faults at every step', async () => {
    let withFaults = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: s.ordering, reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS, sideBySide: true };
        const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults, s.events)) };
        const result = await faultWorld(options).run();
        if (expectEveryRecordsFate(options, result) > 0) withFaults++;
      }),
      PARAMETERS,
    );
    console.log(`side by side: ${withFaults} of ${RUNS} cases had at least one fault, crash or rebalance`);
    expectEnoughCasesHit(withFaults, RUNS, 0.6);
  });
});
