import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { batchOf, heldPublishPipeline, settled } from './held-publish-pipeline';

/**
 * Attack (s26, attack6) on ab0b805 (main-pipeline.ts:162-172 holdPaused): once the held copy is
 * acknowledged, the partition is sought to the first record not taken and resumed, once, inside a
 * tracked background promise. The clients refuse a seek or a resume now and then (the Confluent
 * client while it rejoins its group, kafkajs while its consumer restarts after a crash): the tier
 * pipeline knows it and tries again (tier-pipeline.ts:69-81 resumePartition, RESUME_RETRY_MS).
 * Pipeline-level, as window-counts-records-behind-publishes.test.ts, so the stray rejection of
 * the background wait is caught by the test's `track`, not left unhandled.
 */

describe('a held main record whose partition\'s resume the client refuses once (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (main-pipeline.ts:168-169): the seek and resume after the acknowledgement are tried
  // once; a refusal rejects the tracked background promise (in the runtime,
  // retrying-consumer.ts:219 `void tracked(work)`: an unhandled rejection) and no resume ever
  // reaches the client. STUCK: the partition stays paused for good, the records after the held
  // one never run and the lag grows until a restart.
  // Class: a pause/seek/resume on the client assumed to succeed; the tier pipeline fixed the same
  // class with a retry timer.
  // Fix: in holdPaused, on a refused seek or resume, try again after RESUME_RETRY_MS on the clock
  // (cancelled by stop(); a rebalance must itself resume the partition, see
  // attack6-held-main-record-rebalance.test.ts), as tier-pipeline.ts resumePartition does.
  it('tries the refused resume again until the client takes it', async () => {
    const clock = new VirtualClock(0);
    const moves: string[] = [];
    let refuseResumes = 0;
    const consumer = {
      commitOffsets: async (_offsets: OffsetCommit[]) => {},
      committed: async () => [{ partition: 0, offset: '-1', metadata: null }],
      pause: (at: { partitions: number[] }[]) => void moves.push(`pause ${at[0]!.partitions.join()}`),
      seek: (at: { partition: number; offset: string }) => void moves.push(`seek ${at.partition}@${at.offset}`),
      resume: (at: { partitions: number[] }[]) => {
        if (refuseResumes > 0) {
          refuseResumes--;
          moves.push('resume refused');
          throw new Error('Erroneous state');
        }
        moves.push(`resume ${at[0]!.partitions.join()}`);
      },
    } as unknown as ConsumerPort;
    const strayErrors: unknown[] = [];
    const { pipeline, failedPublish } = heldPublishPipeline(consumer, clock, (work) => void work.catch((error: unknown) => strayErrors.push(error)));

    const batch = pipeline.onBatch(batchOf(0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    await settled();
    failedPublish().hold();
    await batch;
    expect(moves).toEqual(['pause 0']);
    // The operator raises the DLQ's limit; the client refuses the first resume.
    refuseResumes = 1;
    failedPublish().acknowledge();
    await settled();
    for (let i = 0; i < 20 && clock.hasTimers(); i++) {
      clock.advanceToNextTimer();
      await settled();
    }
    expect({ resumed: moves.filter((m) => m === 'resume 0').length, strayErrors }).toEqual({ resumed: 1, strayErrors: [] });
  });
});
