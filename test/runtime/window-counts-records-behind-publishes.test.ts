import { createMainPipeline } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import type { RoutedDestination } from '../../src/runtime/router';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { batchOf } from './held-publish-pipeline';

const destination = { kind: 'dlq' } as RoutedDestination;
const MAX_RECORDS = 5;

/**
 * Two partitions of one consumer, a commit window of five records; the records the test names
 * fail, and their publishes wait until the test acknowledges them (or holds them: a copy too
 * large even for the DLQ).
 */
function pipelineOf(fails: (partition: number, offset: number) => boolean) {
  const committed = new Map<number, number>();
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      for (const o of offsets) committed.set(o.partition, Number(o.offset));
    },
    pause: (at: { partitions: number[] }[]) => void moves.push(`pause ${at[0]!.partitions.join()}`),
    seek: (at: { partition: number; offset: string }) => void moves.push(`seek ${at.partition}@${at.offset}`),
    resume: (at: { partitions: number[] }[]) => void moves.push(`resume ${at[0]!.partitions.join()}`),
  } as unknown as ConsumerPort;
  /** What the pipeline asked of the client: pauses, seeks and resumes. */
  const moves: string[] = [];
  const publishes = new Map<string, { acknowledge: () => void; hold: () => void }>();
  const handled: string[] = [];
  const pipeline = createMainPipeline({
    consumer: () => consumer,
    records: {
      handler: async (record) => {
        handled.push(`${record.partition}:${record.message.offset}`);
        if (fails(record.partition, Number(record.message.offset))) throw new Error('handler failed');
      },
      afterFailure: async (_record, error) => ({ error, destination }),
      publish: (record, failure, _abandoned, hold) =>
        new Promise((resolve) => {
          const acknowledge = () => resolve({ commit: { topic: 't.dlq', partition: 0, offset: '0' }, failure });
          publishes.set(`${record.partition}:${record.message.offset}`, { acknowledge, hold: () => hold?.() });
        }),
      routed: () => {},
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits: createOffsetCommitter(() => consumer, new VirtualClock(0), { intervalMs: 100, maxRecords: MAX_RECORDS }, () => {}),
    stopping: () => false,
    track: () => {},
    onCommitError: () => {},
    maxInFlight: 100,
    now: () => 0,
  });
  const settled = async () => {
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  };
  const taken = (partition: number) => handled.filter((h) => h.startsWith(`${partition}:`)).length;
  return { pipeline, publishes, handled, taken, committed, settled, moves };
}

const offsets = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the commit window of a pipelined consumer', () => {
  it('counts the records behind an unacknowledged publish: the partition takes at most maxRecords past its commit, then waits for the publish', async () => {
    const p = pipelineOf((_partition, offset) => offset === 0);
    const batch = p.pipeline.onBatch(batchOf(0, offsets(0, 19)));
    await p.settled();
    // Records 0 to 4 taken and none committable (record 0's publish is in flight): a crash now runs five again.
    expect(p.taken(0)).toBe(MAX_RECORDS);
    expect(p.committed.get(0)).toBeUndefined();
    p.publishes.get('0:0')!.acknowledge();
    await batch;
    expect(p.taken(0)).toBe(20);
  });

  it('lets another partition go on, committing its records as they finish, while one partition waits for its publish', async () => {
    const p = pipelineOf((partition, offset) => partition === 0 && offset === 0);
    const stuck = p.pipeline.onBatch(batchOf(0, offsets(0, 19)));
    await p.settled();
    await p.pipeline.onBatch(batchOf(1, offsets(0, 19)));
    expect(p.taken(1)).toBe(20);
    // Never more than the window of partition 1's records was left uncommitted.
    expect(p.committed.get(1)).toBeGreaterThanOrEqual(20 - MAX_RECORDS);
    expect(p.taken(0)).toBe(MAX_RECORDS);
    p.publishes.get('0:0')!.acknowledge();
    await stuck;
  });

  it('does not let a partition held by a copy too large for the DLQ stop the others: it waits paused, its batch ended, and reads on once the copy is acknowledged', async () => {
    const p = pipelineOf((partition, offset) => partition === 0 && offset === 0);
    const held = p.pipeline.onBatch(batchOf(0, offsets(0, 19)));
    await p.settled();
    p.publishes.get('0:0')!.hold();
    // The batch ends instead of waiting in the client's slot of partitions in hand.
    await held;
    expect(p.moves).toEqual(['pause 0']);
    await p.pipeline.onBatch(batchOf(1, offsets(0, 19)));
    expect(p.taken(1)).toBe(20);
    expect(p.committed.get(1)).toBe(20);
    // The held partition takes no later record while it waits.
    expect(p.taken(0)).toBe(MAX_RECORDS);
    p.publishes.get('0:0')!.acknowledge();
    await p.settled();
    // Read again from its last record taken, which proves the log is the one it paused in.
    expect(p.moves).toEqual(['pause 0', `seek 0@${MAX_RECORDS - 1}`, 'resume 0']);
    await p.pipeline.onBatch(batchOf(0, offsets(MAX_RECORDS - 1, 19)));
    expect(p.taken(0)).toBe(20);
    expect(p.handled.filter((h) => h === `0:${MAX_RECORDS - 1}`)).toHaveLength(1);
  });
});
