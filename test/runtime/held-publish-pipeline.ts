import { createMainPipeline } from '../../src/runtime/main-pipeline';
import type { MainPipelineOptions } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, EachBatchPayload } from '../../src/runtime/port';
import type { RoutedDestination } from '../../src/runtime/router';
import type { VirtualClock } from '../../src/simulate/virtual-clock';

const destination = { kind: 'dlq' } as RoutedDestination;

/** A batch of topic `t` with these offsets, each record valued its offset. */
export function batchOf(partition: number, offsets: number[]): EachBatchPayload {
  return {
    topic: 't',
    partition,
    messages: offsets.map((o) => ({ key: null, value: Buffer.from(String(o)), offset: String(o), timestamp: '0' })),
    resolveOffset: () => {},
    heartbeat: async () => {},
    isStale: () => false,
  };
}

/** Lets the pipeline's promises and background work run until they wait on something. */
export async function settled(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

/** The publish of the failed record, as the test drives it. */
export interface DrivenPublish {
  /** The copy is too large even for the DLQ: the publish is held. */
  hold(): void;
  /** The broker acknowledges the copy (the operator raised the limit). */
  acknowledge(): void;
  /** The publish fails for another reason than stop: a bug. */
  fail(error: Error): void;
}

/**
 * A main pipeline over `consumer` (a script of the client's calls) whose record at offset 0
 * fails, its publish to the DLQ waiting for the test to hold, acknowledge or fail it; commits
 * go through a committer of a five-record window on the virtual clock. The pipeline-level
 * tests of a held main record, where the client's refusals and the background wait are seen.
 */
export function heldPublishPipeline(consumer: ConsumerPort, clock: VirtualClock, track: MainPipelineOptions['track']) {
  let publish: DrivenPublish | undefined;
  const pipeline = createMainPipeline({
    consumer: () => consumer,
    records: {
      handler: async (record) => {
        if (record.message.offset === '0') throw new Error('handler failed');
      },
      afterFailure: async (_record, error) => ({ error, destination }),
      publish: (_record, failure, _abandoned, hold) =>
        new Promise((resolve, reject) => {
          publish = {
            hold: () => hold?.(),
            acknowledge: () => resolve({ commit: { topic: 't.dlq', partition: 0, offset: '0' }, failure }),
            fail: reject,
          };
        }),
      routed: () => {},
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits: createOffsetCommitter(() => consumer, clock, { intervalMs: 100, maxRecords: 5 }, () => {}),
    stopping: () => false,
    track,
    onCommitError: () => {},
    maxInFlight: 100,
    now: () => clock.now(),
    clock,
  });
  /** The failed record's publish, once the pipeline has started it. */
  const failedPublish = (): DrivenPublish => {
    if (publish === undefined) throw new Error('the failed record has not been published yet');
    return publish;
  };
  return { pipeline, failedPublish };
}
