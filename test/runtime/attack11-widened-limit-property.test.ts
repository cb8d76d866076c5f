import fc from 'fast-check';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns } from './fault-runs';
import { expectEveryRecordsFate } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Attack 11: the property "park-by-key whose stored state the broker's lowered metadata limit
 * no longer keeps" (faults.test.ts) widened: more keys, three partitions, the limit set twice
 * (lowered twice, or lowered and raised again), a configured budget anywhere, up to two faults
 * and two crashes or rebalances. What it checks is the same: no record lost, none early, no
 * partition paused or stopped, order lost only for keys a lowering or a loss could cost,
 * duplicates within the bound.
 */
const PARAMETERS = asyncPropertyRuns(100);
const RUNS = PARAMETERS.numRuns!;
jest.setTimeout(Math.max(300_000, RUNS * 1_000));

const PARTITIONS = 3;
const keys = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('A', 'B') }, { weight: 2, arbitrary: fc.constantFrom('C', 'D', 'E', 'F', 'G', 'H') });
const failures = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.constant(3) });
const records = fc.array(
  fc.record({ key: keys, failures }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { minLength: 1, maxLength: 80 },
);
const anywhere = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);
const operation = fc.oneof({ weight: 1, arbitrary: fc.constant('commit' as const) }, { weight: 2, arbitrary: fc.constantFrom(...PORT_OPERATIONS) });
const fault = fc.record({ operation, at: anywhere, times: fc.integer({ min: 1, max: 7 }), nonRetriable: fc.boolean() });
const budget = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 60, max: 160 }) }, { weight: 1, arbitrary: fc.integer({ min: 160, max: 400 }) }, { weight: 1, arbitrary: fc.constant(undefined) });

const limitsSetTwice = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  at: fc.tuple(anywhere, anywhere),
  limits: fc.tuple(fc.integer({ min: 24, max: 200 }), fc.integer({ min: 24, max: 200 })),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: anywhere }), { maxLength: 2 }),
  faults: fc.array(fault, { maxLength: 2 }),
  parkingBudgetBytes: budget,
});

describe('attack 11: the lowered-metadata-limit property, widened', () => {
  it('park-by-key whose broker metadata limit is set twice at any steps loses no record and stops no partition; order suffers only for keys then in retry', async () => {
    let bit = 0;
    await fc.assert(
      fc.asyncProperty(limitsSetTwice, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
        const dry = await faultWorld(base).run();
        const faults = s.faults.map((f): Fault => ({ ...f, at: Math.floor(f.at * (dry.calls.get(f.operation) ?? 0)) }));
        const events = s.events.map((e): StepEvent => ({ ...e, at: Math.floor(e.at * dry.steps) }));
        const [first, second] = [...s.at].sort((a, b) => a - b) as [number, number];
        const lowerings: StepEvent[] = [first, second].map((at) => ({ kind: 'metadata-limit-lowered', at: Math.floor(at * dry.steps) }));
        const options: FaultWorldOptions = { ...base, faults, events: [...events, ...lowerings], loweredMetadataLimitBytes: s.limits };
        const result = await faultWorld(options).run();
        if (result.lossReruns > 0 || result.lostKeys.size > 0) bit++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
    console.log(`widened: ${bit} of ${RUNS} cases set the limit under a stored state`);
  });
});
