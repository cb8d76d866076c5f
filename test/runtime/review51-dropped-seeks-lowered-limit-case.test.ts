import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import { expectEveryRecordsFate } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * review51-dropped-seeks-lowered-limit-property.test.ts's counterexample at
 * KRT_PROPERTY_SEED=5201 (200 runs, shrunk): the broker's metadata limit lowered to 24 bytes
 * half way, seeks dropped (four at a sixth of the run, one at two thirds), side by side. B's
 * last record is never run. Without the dropped seeks the same run loses nothing.
 */
const base: FaultWorldOptions = {
  ordering: 'park-by-key',
  reaction: 'kafkajs',
  partitions: 2,
  records: [
    { key: 'A', partition: 1, failures: 2 },
    { key: 'B', partition: 0, failures: 1 },
    { key: 'A', partition: 1, failures: 1 },
    { key: 'B', partition: 0, failures: 1 },
    { key: 'A', partition: 1, failures: 1 },
    { key: 'B', partition: 0, failures: 0 },
  ],
  sideBySide: true,
};

async function run(drop: boolean) {
  const dry = await faultWorld(base).run();
  const seeks = dry.calls.get('seek') ?? 0;
  const faults: Fault[] = drop
    ? [
        { operation: 'seek', at: Math.floor(0.166667 * seeks), times: 4, dropped: true },
        { operation: 'seek', at: Math.floor(0.666667 * seeks), times: 1, dropped: true },
      ]
    : [];
  const lowering: StepEvent = { kind: 'metadata-limit-lowered', at: Math.floor(0.518073 * dry.steps) };
  const options: FaultWorldOptions = { ...base, faults, events: [lowering], loweredMetadataLimitBytes: 24 };
  return { options, result: await faultWorld(options).run() };
}

describe('review 51: seeks dropped while the metadata limit is lowered under a stored state', () => {
  it('without a dropped seek, the run loses nothing (the lowered limit alone is handled)', async () => {
    const { options, result } = await run(false);
    expectEveryRecordsFate(options, result, 'kept-but-where-lost');
  });

  it('with seeks dropped, B\'s last record still runs (seed 5201 of the lowered-limit property)', async () => {
    const { options, result } = await run(true);
    console.log(JSON.stringify({ faults: options.faults, events: options.events, lost: result.lost, paused: result.paused, injected: result.injected }));
    expectEveryRecordsFate(options, result, 'kept-but-where-lost');
  });
});
