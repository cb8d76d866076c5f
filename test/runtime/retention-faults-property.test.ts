import fc from 'fast-check';
import type { RetryEvent } from '../../src/runtime/events';
import type { StepEvent } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns, expectEnoughCasesHit } from './fault-runs';
import { budget, expectEveryRecordsFate, fault, PARTITIONS, placed, position, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * Retention deletes main records the consumer has read, at any step, once or twice, with a
 * crash or a rebalance besides (after a restart, parked records are read again from the main
 * topic, and retention may have taken them), under faults at the port, in both orderings.
 * Records deleted before any run of theirs are Kafka's loss, and may never run; every other
 * record reaches its fate, no partition stays paused, no key waits for good (the fault world's
 * stall budget), and duplicates stay within the bound. Each key stays in order, but for the
 * deleted records, and for the keys of a partition whose parked records were given up: copies
 * there run unjudged, as after a shed, so a stale copy may run once more after newer records. Found a stall: parked records retention deleted were waited for, and their
 * keys and their partition's commit stopped for good (park-by-key-retention-deletes-parked-records).
 */
const PARAMETERS = asyncPropertyRuns(60);
const RUNS = PARAMETERS.numRuns!;
jest.setTimeout(Math.max(300_000, RUNS * 1_000));

const scenario = fc.record({
  ordering: fc.constantFrom('unordered' as const, 'park-by-key' as const, 'park-by-key' as const),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  retentions: fc.array(position, { minLength: 1, maxLength: 2 }),
  /** Most cases crash a few steps after a retention: the parked records in memory go with the process, and are read again from the topic. */
  crashAfter: fc.option(fc.integer({ min: 0, max: 20 }), { freq: 4 }),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: position }), { maxLength: 2 }),
  faults: fc.array(fault, { maxLength: 2 }),
  parkingBudgetBytes: budget,
});

describe('retention deleting main records the consumer has read, at any step, under faults, crashes and rebalances', () => {
  it('every record not deleted before it ran reaches its fate, no partition stays paused, no key waits for good, order is kept but for the deleted records', async () => {
    let deletedParked = 0;
    let parkedAtRetention = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: s.ordering, reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const { faults, events } = await placed(base, s.faults, s.events);
        const dry = await faultWorld(base).run();
        const retentions = s.retentions.map((at): StepEvent => ({ kind: 'retention', at: Math.floor(at * dry.steps) }));
        const crash: StepEvent[] = s.crashAfter === null ? [] : [{ kind: 'crash', at: retentions[0]!.at + s.crashAfter }];
        let gaveUp = false;
        const onEvent = (e: RetryEvent) => void (gaveUp ||= e.type === 'parked-records-deleted');
        const options: FaultWorldOptions = { ...base, faults, events: [...events, ...retentions, ...crash], onEvent };
        const result = await faultWorld(options).run();
        if (gaveUp) deletedParked++;
        if (result.deletedWhileParked > 0) parkedAtRetention++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
    console.log(`retention: ${parkedAtRetention} of ${RUNS} cases deleted parked records, ${deletedParked} before they were read again`);
    // About one case in six deletes parked records (6 to 13 of 60 seen): a share of 0.1 failed
    // the suite at a random seed's 6 of 60 (session 40). At least 2 of 60: missed about once in
    // a thousand runs, and still no run that exercised nothing of it.
    expectEnoughCasesHit(parkedAtRetention, RUNS, 0.03);
  });
});
