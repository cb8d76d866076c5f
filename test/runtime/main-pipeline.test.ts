import { createMainPipeline } from '../../src/runtime/main-pipeline';
import type { MainPipelineOptions } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter, DEFAULT_COMMIT_POLICY } from '../../src/runtime/offset-committer';
import type { ConsumerPort, EachBatchPayload, OffsetCommit, TopicPartitionOffset, TopicPartitions } from '../../src/runtime/port';
import { StopRequested } from '../../src/runtime/stop-requested';
import type { RoutedDestination } from '../../src/runtime/router';
import { VirtualClock } from '../../src/simulate/virtual-clock';

const destination = { kind: 'dlq' } as RoutedDestination;

function batchOf(offsets: number[]): EachBatchPayload & { resolved: string[] } {
  const resolved: string[] = [];
  return {
    topic: 't',
    partition: 0,
    messages: offsets.map((o) => ({ key: null, value: Buffer.from(String(o)), offset: String(o), timestamp: '0' })),
    resolveOffset: (offset) => void resolved.push(offset),
    heartbeat: async () => {},
    isStale: () => false,
    resolved,
  };
}

/** A pipeline whose every record fails, and whose publish fails as only a bug could: not a stop. */
function brokenPublishPipeline(maxInFlight: number, fails: (offset: number) => boolean = () => true) {
  const clock = new VirtualClock(0);
  const commitOffsets = jest.fn(async () => {});
  const consumer = { commitOffsets, pause: () => {} } as unknown as ConsumerPort;
  const options: MainPipelineOptions = {
    consumer: () => consumer,
    records: {
      handler: async (record) => {
        if (fails(Number(record.message.offset))) throw new Error('handler failed');
      },
      afterFailure: async (_record, error) => ({ error, destination }),
      publish: async () => {
        throw new Error('a bug in the publish path');
      },
      routed: () => {},
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits: createOffsetCommitter(() => consumer, clock, { ...DEFAULT_COMMIT_POLICY, intervalMs: 0 }, () => {}),
    stopping: () => false,
    track: () => {},
    onCommitError: () => {},
    maxInFlight,
    now: () => clock.now(),
  };
  return { pipeline: createMainPipeline(options), commitOffsets };
}

describe('the main pipeline when a publish fails for a reason other than stop', () => {
  it('throws the failure to the client instead of waiting forever at its limit of publishes in flight', async () => {
    const { pipeline, commitOffsets } = brokenPublishPipeline(1);
    await expect(pipeline.onBatch(batchOf([0, 1, 2]))).rejects.toThrow('a bug in the publish path');
    // Nothing past the record whose publish failed is ever committed.
    expect(commitOffsets).not.toHaveBeenCalled();
  });

  it('throws it once, then goes on with the partition without ever committing past that record', async () => {
    const { pipeline, commitOffsets } = brokenPublishPipeline(100, (offset) => offset === 0);
    const thrown: unknown[] = [];
    for (const batch of [[0, 1, 2], [3, 4], [5, 6]]) await pipeline.onBatch(batchOf(batch)).catch((error: unknown) => thrown.push(error));
    expect(thrown).toHaveLength(1);
    expect(commitOffsets).not.toHaveBeenCalled();
  });
});

/** A batch of partition 0 that counts its heartbeats and turns stale when the test says. */
function watchedBatch(offsets: number[]) {
  let stale = false;
  let staleChecks = 0;
  const batch = {
    ...batchOf(offsets),
    heartbeats: 0,
    heartbeat: async () => void batch.heartbeats++,
    isStale: () => {
      staleChecks++;
      return stale;
    },
    goStale: () => (stale = true),
    staleChecks: () => staleChecks,
  };
  return batch;
}

/**
 * A pipeline over a client double that logs its pauses, seeks and the moves of its
 * committed offset (each record's commit goes out at once). Each record takes `handleMs`; the records `fails` picks fail,
 * and their publishes wait until the test acknowledges or fails them.
 */
function pipelineOf(options: { fails?: (offset: number) => boolean; handleMs?: number; maxInFlight?: number; onHandle?: (offset: number) => void } = {}) {
  let now = 0;
  let stopping = false;
  const log: string[] = [];
  let committed: string | undefined;
  const consumer = {
    // Logged when the group's offset moves (a commit of the same offset again changes nothing).
    commitOffsets: async (offsets: OffsetCommit[]) => {
      for (const o of offsets) if (o.offset !== committed) log.push(`commit ${(committed = o.offset)}`);
    },
    pause: (topics: TopicPartitions[]) => void log.push(`pause ${topics[0]!.partitions.join()}`),
    seek: (at: TopicPartitionOffset) => void log.push(`seek ${at.offset}`),
    committed: async () => [{ partition: 0, offset: committed ?? '-1', metadata: null }],
  } as unknown as ConsumerPort;
  const publishes = new Map<number, { acknowledge: () => void; fail: (error: unknown) => void; abandoned: () => boolean }>();
  const handled: number[] = [];
  const routed: number[] = [];
  const pipeline = createMainPipeline({
    consumer: () => consumer,
    records: {
      handler: async (record) => {
        const offset = Number(record.message.offset);
        handled.push(offset);
        now += options.handleMs ?? 0;
        options.onHandle?.(offset);
        if (options.fails?.(offset)) throw new Error('handler failed');
      },
      afterFailure: async (_record, error) => ({ error, destination }),
      publish: (record, failure, abandoned) =>
        new Promise((resolve, reject) => {
          const acknowledge = () => resolve({ commit: { topic: 't.retry.1m', partition: 0, offset: '0' }, failure });
          publishes.set(Number(record.message.offset), { acknowledge, fail: reject, abandoned });
        }),
      routed: (record) => void routed.push(Number(record.message.offset)),
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits: createOffsetCommitter(() => consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {}),
    stopping: () => stopping,
    track: () => {},
    onCommitError: () => {},
    maxInFlight: options.maxInFlight ?? 100,
    now: () => now,
  });
  /** Lets the publishes the test answered finish (an abandoned one the test leaves unanswered never does). */
  const settled = async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return { pipeline, log, handled, routed, publishes, settled, stop: () => (stopping = true) };
}

describe('the main pipeline', () => {
  it('does nothing with an empty batch', async () => {
    const p = pipelineOf();
    await p.pipeline.onBatch(batchOf([]));
    expect(p.log).toEqual([]);
  });

  it('takes every record of a batch, commits after each and resolves the last one taken', async () => {
    const p = pipelineOf();
    const batch = watchedBatch([0, 1, 2]);
    await p.pipeline.onBatch(batch);
    expect(p.handled).toEqual([0, 1, 2]);
    expect(p.log).toEqual(['commit 1', 'commit 2', 'commit 3']);
    expect(batch.resolved).toEqual(['2']);
  });

  it('does not heartbeat within a batch shorter than a second, and asks whether it went stale at most every 10 ms', async () => {
    const p = pipelineOf({ handleMs: 5 });
    const batch = watchedBatch([0, 1, 2, 3, 4]);
    await p.pipeline.onBatch(batch);
    expect(batch.heartbeats).toBe(0);
    // Asked before the records taken at 0, 10 and 20 ms, and once when the batch ends.
    expect(batch.staleChecks()).toBe(4);
  });

  it('ends a batch after a second of handling, heartbeating first; the records not taken are fetched again', async () => {
    const p = pipelineOf({ handleMs: 500 });
    const batch = watchedBatch([0, 1, 2, 3]);
    await p.pipeline.onBatch(batch);
    expect(p.handled).toEqual([0, 1]);
    expect(batch.heartbeats).toBe(1);
    expect(batch.resolved).toEqual(['1']);
  });

  it('takes no record of a batch that is stale before its first one, and resolves nothing', async () => {
    const p = pipelineOf();
    const batch = watchedBatch([0, 1]);
    batch.goStale();
    await p.pipeline.onBatch(batch);
    expect(p.handled).toEqual([]);
    expect(batch.resolved).toEqual([]);
  });

  it('resolves nothing of a batch that went stale while a record ran (a seek reads it again)', async () => {
    let batch!: ReturnType<typeof watchedBatch>;
    const p = pipelineOf({ handleMs: 20, onHandle: () => batch.goStale() });
    batch = watchedBatch([0, 1]);
    await p.pipeline.onBatch(batch);
    expect(p.handled).toEqual([0]);
    expect(batch.resolved).toEqual([]);
  });

  it('stops taking records once stop() begins, and pauses the partition for the next run', async () => {
    const p = pipelineOf({ onHandle: (offset) => offset === 1 && p.stop() });
    const batch = watchedBatch([0, 1, 2, 3]);
    await p.pipeline.onBatch(batch);
    expect(p.handled).toEqual([0, 1]);
    expect(batch.resolved).toEqual(['1']);
    expect(p.log).toEqual(['commit 1', 'commit 2', 'pause 0']);
  });

  it('commits a failed record only once its publish is acknowledged, and routes it then', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    expect(p.log).toEqual(['commit 1']);
    expect(p.routed).toEqual([]);
    p.publishes.get(1)!.acknowledge();
    await p.settled();
    expect(p.routed).toEqual([1]);
    expect(p.log).toEqual(['commit 1', 'commit 3']);
  });

  it('waits at its limit of publishes in flight until one is acknowledged', async () => {
    const p = pipelineOf({ fails: () => true, maxInFlight: 2 });
    const done = p.pipeline.onBatch(watchedBatch([0, 1, 2, 3]));
    await new Promise((r) => setImmediate(r));
    expect(p.handled).toEqual([0, 1]);
    p.publishes.get(0)!.acknowledge();
    await new Promise((r) => setImmediate(r));
    expect(p.handled).toEqual([0, 1, 2]);
    p.publishes.get(1)!.acknowledge();
    p.publishes.get(2)!.acknowledge();
    await done;
    expect(p.handled).toEqual([0, 1, 2, 3]);
  });

  it('commits nothing after a rebalance for a publish acknowledged late, until the partition’s next batch says where it resumes', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    p.pipeline.forget();
    expect(p.publishes.get(1)!.abandoned()).toBe(true);
    p.publishes.get(1)!.acknowledge();
    await p.settled();
    expect(p.log).toEqual(['commit 1']);
  });

  it('keeps a record whose publish stop() cut short uncommitted, and throws nothing to the client', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    p.publishes.get(1)!.fail(new StopRequested());
    await p.settled();
    await p.pipeline.onBatch(watchedBatch([3]));
    expect(p.log).toEqual(['commit 1']);
  });

  it('reads past the records it finished before a rebalance when their partition comes back at an older offset, and commits them', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    p.pipeline.forget();
    p.publishes.get(1)!.acknowledge(); // 1 is in its tier after all
    await p.settled();
    const again = watchedBatch([1, 2, 3]); // the group lost the commits past 1
    await p.pipeline.onBatch(again);
    expect(p.handled).toEqual([0, 1, 2]);
    expect(again.resolved).toEqual([]);
    expect(p.log).toEqual(['commit 1', 'seek 3', 'commit 3']);
  });

  it('reads a partition again from a record whose publish a rebalance gave up, when the partition comes back past it', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    p.pipeline.forget();
    await p.pipeline.onBatch(watchedBatch([3, 4])); // resumed at the last resolved offset
    expect(p.handled).toEqual([0, 1, 2]);
    expect(p.log).toEqual(['commit 1', 'seek 1']);
    await p.pipeline.onBatch(watchedBatch([1, 2, 3]));
    expect(p.handled).toEqual([0, 1, 2, 1, 2, 3]);
  });

  it('runs the records of a partition again from where it comes back after a rebalance, their old publishes given up', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    const first = p.publishes.get(1)!;
    p.pipeline.forget();
    await p.pipeline.onBatch(watchedBatch([1, 2]));
    expect(p.handled).toEqual([0, 1, 2, 1, 2]);
    expect(first.abandoned()).toBe(true);
    p.publishes.get(1)!.acknowledge(); // the new publish of 1
    await p.settled();
    expect(p.log).toEqual(['commit 1', 'commit 3']);
  });

  it('throws a publish that failed between two batches at the partition’s next batch, and commits nothing past its record', async () => {
    const p = pipelineOf({ fails: (offset) => offset === 1 });
    await p.pipeline.onBatch(watchedBatch([0, 1, 2]));
    p.publishes.get(1)!.fail(new Error('a bug in the publish path'));
    await p.settled();
    await expect(p.pipeline.onBatch(watchedBatch([3, 4]))).rejects.toThrow('a bug in the publish path');
    expect(p.handled).toEqual([0, 1, 2]);
    expect(p.log).toEqual(['commit 1']);
  });
});
