import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * A main record that ran, whose state commit was refused, does not run again when it is handed
 * over again under the same state (ran-awaiting-commit.ts) — unless its copy went to a tier: the
 * copy, read under the state read again, is a stale duplicate of a record not yet taken, and is
 * skipped because that record runs again.
 */
describe('a main record taken again after its state commit was refused', () => {
  it('whose copy went to a tier runs again, so the copy skipped as stale is not its only retry (found by the lowered-limit property, seed 1472549706)', async () => {
    // The broker's metadata limit is lowered under the state at the first step: every commit of
    // it is refused as too large until the state is shed to fit, and A's first run had a copy.
    const options: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      partitions: 2,
      parkingBudgetBytes: 160,
      records: [
        { key: 'C', partition: 1, failures: 3 },
        { key: 'A', partition: 1, failures: 3 },
      ],
      events: [{ kind: 'metadata-limit-lowered', at: 0 }],
      loweredMetadataLimitBytes: 43,
    };
    const result = await faultWorld(options).run();
    expect(result.metadataLimitsLowered).toBe(1);
    expect(result.lost).toEqual([]);
  });
});
