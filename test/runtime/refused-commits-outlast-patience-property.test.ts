import fc from 'fast-check';
import { asyncPropertyRuns, expectEnoughCasesHit } from './fault-runs';
import { budget, event, expectEveryRecordsFate, fault, PARTITIONS, placed, position, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * Commit refusals that outlast the commit patience (30 s of waits: about a dozen refusals in a
 * row), beside the other faults and events of the fault properties. Past the patience the
 * operation fails and the client hands its record over again; a main record that ended done
 * or in the DLQ before its state commit was refused is then not run again
 * (ran-awaiting-commit.ts). Whatever the record, the tiers, crashes and rebalances meanwhile:
 * no record lost or run early, each key in order, no partition left paused, duplicates within
 * the bound.
 */
const PARAMETERS = asyncPropertyRuns(100);
const RUNS = PARAMETERS.numRuns!;
jest.setTimeout(Math.max(300_000, RUNS * 1_500));

const outage = fc.record({ operation: fc.constant('commit' as const), at: position, times: fc.integer({ min: 12, max: 60 }), nonRetriable: fc.constant(false) });

const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  outage,
  faults: fc.array(fault, { maxLength: 2 }),
  events: fc.array(event, { maxLength: 2 }),
  parkingBudgetBytes: budget,
});

describe('park-by-key under commit refusals longer than the commit patience', () => {
  it('loses no record, runs none early, keeps each key in order and leaves no partition paused', async () => {
    let outlasted = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const { faults, events } = await placed(base, [s.outage, ...s.faults], s.events);
        const options: FaultWorldOptions = { ...base, faults, events };
        const result = await faultWorld(options).run();
        if (result.injected >= 12) outlasted++;
        expectEveryRecordsFate(options, result);
      }),
      PARAMETERS,
    );
    console.log(`commit refusals past the patience: ${outlasted} of ${RUNS} cases met at least twelve refusals`);
    expectEnoughCasesHit(outlasted, RUNS, 0.5);
  });
});
