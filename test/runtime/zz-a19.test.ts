import fc from 'fast-check';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns } from './fault-runs';
import { budget, expectEveryRecordsFate, keys, nonRetriable, PARTITIONS, placed, position, records } from './fault-scenarios';
import { faultWorld } from './attack13-fault-world';
import type { FaultWorldOptions, PlannedRecord } from './attack13-fault-world';
const PARAMETERS = asyncPropertyRuns(60);
jest.setTimeout(Math.max(600_000, PARAMETERS.numRuns! * 2_000));

const replays = fc.array(
  fc.record({ key: keys, failures: fc.constantFrom(0, 1, 1, 2, 3) }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { maxLength: 20 },
);
const operation = fc.oneof({ weight: 4, arbitrary: fc.constant('commit' as const) }, { weight: 1, arbitrary: fc.constantFrom(...PORT_OPERATIONS) });
const fault = fc.record({ operation, at: position, times: fc.integer({ min: 1, max: 3 }), nonRetriable });
const kinds = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('rebalance' as const, 'crash' as const) },
  { weight: Number(process.env.KRT_A19_LOSS_WEIGHT ?? 1), arbitrary: fc.constantFrom('state-lost' as const, 'metadata-limit-lowered' as const) },
);
const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  replays,
  replayDueAfterMs: process.env.KRT_A19_DUE === undefined ? fc.constantFrom(0, 0, 1, 1_000) : fc.constant(Number(process.env.KRT_A19_DUE)),
  replayNames: fc.constantFrom('other-key' as const, 'any' as const, 'own-key' as const),
  faults: fc.array(fault, { maxLength: 8 }),
  events: fc.array(fc.record({ kind: kinds, at: position }), { maxLength: 5 }),
  limits: fc.tuple(fc.integer({ min: 40, max: 200 }), fc.integer({ min: 40, max: 400 })),
  parkingBudgetBytes: budget,
});


import { writeFileSync } from 'node:fs';
it('dumps', async () => {
  await fc.check(
    fc.asyncProperty(scenario, async (s) => {
      const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, replays: s.replays, replayDueAfterMs: s.replayDueAfterMs, replayNames: s.replayNames, parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
      const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults, s.events)), loweredMetadataLimitBytes: s.limits };
      const result = await faultWorld(options).run();
      let bad = false;
      try { expectEveryRecordsFate(options, result, 'kept-but-where-lost'); } catch { bad = true; }
      if (bad) writeFileSync('/tmp/a19-case.json', JSON.stringify(options));
      return !bad;
    }),
    { ...PARAMETERS },
  );
});
