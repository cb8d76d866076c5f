import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { batchOf, heldPublishPipeline, settled } from './held-publish-pipeline';

/**
 * Attack (s26, attack6) on ab0b805 (main-pipeline.ts:162-172 holdPaused, :211-215 the hold
 * checked before throwFailure). A publish that fails for a reason other than stop is a bug: the
 * pipeline keeps the error and throws it to the client at the partition's next record
 * (main-pipeline.ts:130-133, 174-180), so it is seen and the commit never passes the record.
 * Here the publish fails after it was held.
 */

describe('a held main record whose publish then fails instead of being acknowledged (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (main-pipeline.ts:211-215 with partition-progress.ts:142-144): a failed publish stays
  // in `unacked` with held = true (publishInBackground's catch, main-pipeline.ts:129-135, only
  // releases), so `progress.holding` stays true for good. holdPaused's wait ends at once
  // (failures.has), seeks to nextOffset and resumes; the next batch meets `progress.holding`
  // before throwFailure, pauses again, ends, resumes again... The error is never thrown to the
  // client and the partition never moves: STUCK silently, in a pause/seek/resume cycle, one
  // tracked promise per batch.
  // Class: two exits of a wait (held, failed) whose order makes the second unreachable; the
  // "held" flag outliving the publish it described.
  // Fix: check throwFailure(progress) before the hold (or make `holding` false once the pending
  // failed: drop `held` from a pending whose publish rejected), so the failure is thrown once.
  it('throws the publish\'s error to the client at the partition\'s next batch, instead of pausing it again', async () => {
    const clock = new VirtualClock(0);
    const moves: string[] = [];
    const consumer = {
      commitOffsets: async (_offsets: OffsetCommit[]) => {},
      pause: () => void moves.push('pause'),
      seek: (at: { offset: string }) => void moves.push(`seek ${at.offset}`),
      resume: () => void moves.push('resume'),
    } as unknown as ConsumerPort;
    const { pipeline, failedPublish } = heldPublishPipeline(consumer, clock, (work) => void work.catch(() => {}));

    const first = pipeline.onBatch(batchOf(0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    await settled();
    failedPublish().hold();
    await first;
    const bug = new Error('a bug in the publish');
    failedPublish().fail(bug);
    await settled();
    // The wait ended: the partition was sought to the first record not taken and resumed.
    const next = Number(moves.find((m) => m.startsWith('seek '))!.slice('seek '.length));
    // Seen: the batch resolves; the moves go on pause, seek 5, resume, pause, seek 5, resume...
    await expect(pipeline.onBatch(batchOf(0, [next, next + 1, next + 2]))).rejects.toBe(bug);
  });
});
