import { createMainPipeline } from '../../src/runtime/main-pipeline';
import type { MainPipelineOptions } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter, DEFAULT_COMMIT_POLICY } from '../../src/runtime/offset-committer';
import type { ConsumerPort, EachBatchPayload } from '../../src/runtime/port';
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
