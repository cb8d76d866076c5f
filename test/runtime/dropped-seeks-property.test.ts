import fc from 'fast-check';
import type { Fault } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns, expectEnoughCasesHit } from './fault-runs';
import { atBudgetRecords, budget, event, expectEveryRecordsFate, failures, fault, keys, PARTITIONS, position, records, withDroppedSeeks } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * The Confluent client runs a seek later, in its own loop, and only logs one librdkafka
 * refuses (a partition whose fetcher is stopping or not started): the runtime is not told, and
 * the client reads on from where it was. Whatever a seek was for (a tier record waiting for its
 * due time, parked records read again, a gap confirmed, a record not taken at the budget, a
 * record fetched before a load), a record the client reads past one the runtime did not take
 * must not be taken: the one passed would never run.
 */
const PARAMETERS = asyncPropertyRuns(150);
const RUNS = PARAMETERS.numRuns!;
jest.setTimeout(Math.max(300_000, RUNS * 1_000));

/**
 * Up to four seeks dropped at a time, at up to two places of a run (up to eight in a row). Each
 * seek the runtime relies on is made again by something else (a resume, a load, a timer, the
 * next record read past it), for a minute at least; librdkafka refuses a seek only while the
 * partition's fetcher is stopping or not started, which does not last that long.
 */
const droppedSeeks = fc.record({ operation: fc.constant('seek' as const), at: position, times: fc.integer({ min: 1, max: 4 }), nonRetriable: fc.constant(false), keptUntilAssigned: fc.boolean() });

const scenario = fc.record({
  ordering: fc.constantFrom('unordered' as const, 'park-by-key' as const, 'park-by-key' as const),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  dropped: fc.array(droppedSeeks, { minLength: 1, maxLength: 2 }),
  faults: fc.array(fault, { maxLength: 2 }),
  events: fc.array(event, { maxLength: 2 }),
  parkingBudgetBytes: budget,
  sideBySide: fc.boolean(),
});

/** Hot keys fail once and park until the partition is at its budget, where a record not taken is sought back to. */
const atBudget = fc.record({
  hot: fc.array(fc.record({ key: fc.constantFrom('J', 'K', 'L'), parked: fc.integer({ min: 1, max: 40 }) }), { minLength: 1, maxLength: 3 }),
  tail: fc.array(fc.record({ key: keys, failures }), { maxLength: 10 }),
  dropped: fc.array(fc.record({ at: fc.nat({ max: 80 }), times: fc.integer({ min: 1, max: 4 }), keptUntilAssigned: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  parkingBudgetBytes: fc.integer({ min: 60, max: 200 }),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
});

describe('seeks the client drops without a word', () => {
  it('lose no record, run none early, keep each key in order and leave no partition paused', async () => {
    let dropping = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: s.ordering, reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS, sideBySide: s.sideBySide };
        const options = await withDroppedSeeks(base, s.dropped, s.faults, s.events);
        const result = await faultWorld(options).run();
        if (result.injected > 0) dropping++;
        expectEveryRecordsFate(options, result);
      }),
      PARAMETERS,
    );
    console.log(`dropped seeks: ${dropping} of ${RUNS} cases dropped at least one call`);
    expectEnoughCasesHit(dropping, RUNS, 0.5);
  });

  it('park-by-key at its budget: a dropped seek loses nothing and leaves no partition paused', async () => {
    await fc.assert(
      fc.asyncProperty(atBudget, async ({ hot, tail, dropped, parkingBudgetBytes, reaction }) => {
        const planned = atBudgetRecords(hot, tail);
        const faults = dropped.map((f): Fault => ({ operation: 'seek', ...f, dropped: true }));
        const result = await faultWorld({ ordering: 'park-by-key', reaction, partitions: 1, records: planned, faults, parkingBudgetBytes }).run();
        expect(result.paused).toEqual([]);
        expect(result.lost).toEqual([]);
        expect(result.outOfOrder).toEqual([]);
      }),
      PARAMETERS,
    );
  });
});
