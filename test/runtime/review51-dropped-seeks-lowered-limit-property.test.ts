import fc from 'fast-check';
import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns } from './fault-runs';
import { expectEveryRecordsFate } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Review 51: the dropped-seeks property where the seeks that matter are the shed's and the
 * other seeks a main record is not taken for (load, shed, moved back): the broker's metadata
 * limit is lowered under a stored state (the shed seeks p back to its new position, and the
 * main record that brought the load is not taken), while seeks are dropped without a word.
 */
const PARAMETERS = asyncPropertyRuns(200);
jest.setTimeout(600_000);

const PARTITIONS = 2;
const keys = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('A', 'B') }, { weight: 2, arbitrary: fc.constantFrom('C', 'D', 'E') });
const failures = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) });
const records = fc.array(
  fc.record({ key: keys, failures }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { minLength: 1, maxLength: 40 },
);
const anywhere = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);

const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  lowered: anywhere,
  limit: fc.integer({ min: 24, max: 120 }),
  dropped: fc.array(fc.record({ at: anywhere, times: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 3 }),
  sideBySide: fc.boolean(),
});

describe('review 51: seeks dropped while the metadata limit is lowered under a stored state', () => {
  it('lose no record, run none early and leave no partition paused; order suffers only for keys then in retry', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, partitions: PARTITIONS, sideBySide: s.sideBySide };
        const dry = await faultWorld(base).run();
        const seeks = dry.calls.get('seek') ?? 0;
        const faults = s.dropped.map((f): Fault => ({ operation: 'seek', at: Math.floor(f.at * seeks), times: f.times, dropped: true }));
        const lowering: StepEvent = { kind: 'metadata-limit-lowered', at: Math.floor(s.lowered * dry.steps) };
        const options: FaultWorldOptions = { ...base, faults, events: [lowering], loweredMetadataLimitBytes: s.limit };
        const result = await faultWorld(options).run();
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
  });
});
