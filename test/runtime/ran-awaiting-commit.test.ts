import type { PortMessage } from '../../src/runtime/port';
import { createRanAwaitingCommit } from '../../src/runtime/ran-awaiting-commit';
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

/** A main record of key `key` at `offset`, read the same each time it is handed over. */
const record = (offset: number, key = 'A', value = 'v'): PortMessage => ({ key: Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '1000' });
const STATE = 'AbCd1234';

describe('what park-by-key remembers of a main record that ran while its state commit waits', () => {
  it('gives the outcome of a record that ended done or in the DLQ back once, when the very record is handed over again under the same state', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), STATE, 'success');
    ran.remember(1, record(8), STATE, 'dlq');
    expect(ran.take(0, record(5), STATE)).toBe('success');
    expect(ran.take(1, record(8), STATE)).toBe('dlq');
    // Taken, it is forgotten: a third hand-over runs it.
    expect(ran.take(0, record(5), STATE)).toBeUndefined();
  });

  it('does not remember a record whose copy went to a tier: the copy is skipped as stale under the state read again, so the record must run again', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), STATE, 'tier');
    expect(ran.take(0, record(5), STATE)).toBeUndefined();
  });

  it('forgets what ran before when the next record of the partition goes to a tier', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), STATE, 'success');
    ran.remember(0, record(6), STATE, 'tier');
    expect(ran.take(0, record(5), STATE)).toBeUndefined();
  });

  it('remembers nothing run under a state without an id: nothing tells it from another state begun from nothing (a new log\'s)', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), undefined, 'dlq');
    expect(ran.take(0, record(5), undefined)).toBeUndefined();
  });

  it('runs the record again under another state, and forgets it', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), STATE, 'success');
    expect(ran.take(0, record(5), 'ZyXw9876')).toBeUndefined();
    expect(ran.take(0, record(5), STATE)).toBeUndefined();
  });

  it('runs another record at that offset (a log made again), and forgets the one that ran', () => {
    const ran = createRanAwaitingCommit();
    ran.remember(0, record(5), STATE, 'success');
    expect(ran.take(0, record(5, 'A', 'other value'), STATE)).toBeUndefined();
    expect(ran.take(0, record(5), STATE)).toBeUndefined();
  });
});

