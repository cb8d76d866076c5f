import fc from 'fast-check';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns, expectEnoughCasesHit } from './fault-runs';
import { atBudgetRecords, budget, expectEveryRecordsFate, event, failures, fault, keys, nonRetriable, PARTITIONS, placed, position, records } from './fault-scenarios';
import { DEFAULT_STALL_BUDGET, faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Bounded so that `npm test` stays fast (KRT_PROPERTY_RUNS raises it, KRT_PROPERTY_SEED
 * picks the seed); a failure prints its seed and shrunk counterexample. A case that stalls
 * fails within its step budget (fault-budget.ts), a case that outruns CASE_TIMEOUT_MS too.
 */
const PARAMETERS = asyncPropertyRuns(150);
const RUNS = PARAMETERS.numRuns!;

/** The longest run of steps without progress in any passing case: how close the cases come to the stall budget. */
let longestIdle = 0;
afterAll(() => console.log(`stall budget: at most ${longestIdle} steps in a row without progress in a passing case (budget ${DEFAULT_STALL_BUDGET.steps})`));
const idle = <R extends { longestIdle: number }>(result: R): R => {
  longestIdle = Math.max(longestIdle, result.longestIdle);
  return result;
};

// A few seconds at the default count; a loaded CI machine may take several times that.
jest.setTimeout(Math.max(300_000, RUNS * 1_000));

/** Records `krt dlq replay` wrote into the first tier: their keys are often busy, so park-by-key has them wait their turn. */
const replays = fc.array(
  fc.record({ key: keys, failures: fc.constantFrom(0, 0, 1, 2) }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { maxLength: 12 },
);

const scenario = fc.record({
  ordering: fc.constantFrom('unordered' as const, 'park-by-key' as const),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  replays,
  faults: fc.array(fault, { maxLength: 6 }),
  events: fc.array(event, { maxLength: 3 }),
  parkingBudgetBytes: budget,
});


/**
 * Faults at the port: any operation fails once or several times at any step, the group
 * rebalances or the process crashes at any step, with kafkajs's and the Confluent
 * client's reaction to a throw, in both ordering modes. Once the faults stop, what a user
 * sees must hold.
 */
/**
 * Park-by-key at its budget: hot keys fail once and their records park until the
 * partition's state is full, then one operation fails once or a few times at any step.
 */
const atBudget = fc.record({
  hot: fc.array(fc.record({ key: fc.constantFrom('J', 'K', 'L'), parked: fc.integer({ min: 1, max: 40 }) }), { minLength: 1, maxLength: 3 }),
  tail: fc.array(fc.record({ key: keys, failures }), { maxLength: 10 }),
  fault: fc.record({ operation: fc.constantFrom(...PORT_OPERATIONS), at: fc.nat({ max: 80 }), times: fc.integer({ min: 1, max: 3 }), nonRetriable }) as fc.Arbitrary<Fault>,
  parkingBudgetBytes: fc.integer({ min: 60, max: 200 }),
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
});

/**
 * Park-by-key whose committed state is lost (an offset reset, a client without metadata,
 * trailing bytes) at any step, once or twice, with a crash or a rebalance besides.
 */
/** Uniform over the run, as `position`. */
const anywhere = position;
const stateLost = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  losses: fc.array(anywhere, { minLength: 1, maxLength: 2 }),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: anywhere }), { maxLength: 1 }),
  faults: fc.array(fault, { maxLength: 1 }),
  parkingBudgetBytes: budget,
});

/**
 * Park-by-key while the broker's `offset.metadata.max.bytes` comes down at any step, to
 * anywhere from under the empty state with its id to a few keys' worth, with a crash, a
 * rebalance or a failed operation besides: states stored over it must be shed, not sent again.
 */
const limitLowered = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  at: anywhere,
  limit: fc.integer({ min: 24, max: 90 }),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: anywhere }), { maxLength: 1 }),
  faults: fc.array(fault, { maxLength: 1 }),
  parkingBudgetBytes: budget,
});

describe('the runtime under faults at every step', () => {
  it('park-by-key whose committed state is lost at any step loses no record; order suffers only for keys then in retry', async () => {
    let lossesThatBit = 0;
    await fc.assert(
      fc.asyncProperty(stateLost, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const { faults, events } = await placed(base, s.faults, s.events);
        const dry = await faultWorld(base).run();
        const losses = s.losses.map((at): StepEvent => ({ kind: 'state-lost', at: Math.floor(at * dry.steps) }));
        const options: FaultWorldOptions = { ...base, faults, events: [...events, ...losses] };
        const result = idle(await faultWorld(options).run());
        if (result.lostKeys.size > 0) lossesThatBit++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
    console.log(`state lost: ${lossesThatBit} of ${RUNS} cases lost the state of a key in retry or with a record in the tiers`);
    expectEnoughCasesHit(lossesThatBit, RUNS, 0.3);
  });

  it('park-by-key whose stored state the broker\'s lowered metadata limit no longer keeps loses no record and stops no partition; order suffers only for keys then in retry', async () => {
    let limitsThatBit = 0;
    await fc.assert(
      fc.asyncProperty(limitLowered, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const { faults, events } = await placed(base, s.faults, s.events);
        const dry = await faultWorld(base).run();
        const lowered: StepEvent = { kind: 'metadata-limit-lowered', at: Math.floor(s.at * dry.steps) };
        const options: FaultWorldOptions = { ...base, faults, events: [...events, lowered], loweredMetadataLimitBytes: s.limit };
        const result = idle(await faultWorld(options).run());
        if (result.lossReruns > 0 || result.lostKeys.size > 0) limitsThatBit++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
    console.log(`metadata limit lowered: ${limitsThatBit} of ${RUNS} cases lowered it under a stored state`);
    expectEnoughCasesHit(limitsThatBit, RUNS, 0.2);
  });

  it('park-by-key: a key\'s retry in flight is not lost whichever step the state is lost at (sweep of every step)', async () => {
    // k fails into the first tier, then into the second; other keys go on around it.
    const sweep: PlannedRecord[] = [
      { key: 'A', partition: 0, failures: 2 },
      { key: 'B', partition: 0, failures: 0 },
      { key: 'A', partition: 0, failures: 0 },
      { key: 'B', partition: 0, failures: 1 },
      { key: 'C', partition: 0, failures: 0 },
    ];
    for (const reaction of ['kafkajs', 'confluent'] as const) {
      const base: FaultWorldOptions = { ordering: 'park-by-key', reaction, records: sweep, partitions: 1 };
      const dry = await faultWorld(base).run();
      let bit = 0;
      for (let at = 0; at < dry.steps; at++) {
        const options: FaultWorldOptions = { ...base, events: [{ kind: 'state-lost', at }] };
        const result = idle(await faultWorld(options).run());
        if (result.lostKeys.size > 0) bit++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }
      expect(bit).toBeGreaterThan(dry.steps / 3);
    }
  });

  it('park-by-key at its parking budget: one failed operation at any step leaves no partition paused and loses nothing', async () => {
    await fc.assert(
      fc.asyncProperty(atBudget, async ({ hot, tail, fault, parkingBudgetBytes, reaction }) => {
        const records = atBudgetRecords(hot, tail);
        const result = idle(await faultWorld({ ordering: 'park-by-key', reaction, partitions: 1, records, faults: [fault], parkingBudgetBytes }).run());
        expect(result.paused).toEqual([]);
        expect(result.lost).toEqual([]);
        expect(result.outOfOrder).toEqual([]);
      }),
      PARAMETERS,
    );
  });


  it('loses no record, runs none early, keeps each key in order, leaves no partition paused, and bounds duplicates by the commit window', async () => {
    let cases = 0;
    let withFaults = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: s.ordering, reaction: s.reaction, records: s.records, replays: s.replays, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults, s.events)) };
        const world = faultWorld(options);
        const result = idle(await world.run());
        cases++;
        const incidents = expectEveryRecordsFate(options, result);
        if (incidents > 0) withFaults++;
      }),
      PARAMETERS,
    );
    // Most cases inject something: a case without a fault tests nothing of the faults.
    console.log(`fault harness: ${withFaults} of ${cases} cases had at least one fault, crash or rebalance`);
    expectEnoughCasesHit(withFaults, cases, 0.6);
  });
});
