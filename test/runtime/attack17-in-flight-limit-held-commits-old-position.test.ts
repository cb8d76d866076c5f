import { HeldMainWorld } from './held-main-world';
import { aRunsBigHeld, limitRaisedBeforeNewLogHasRecords } from './recreated-main-held-stages';

/**
 * Found by attack 17: LOST records (attack 16's recreated-main-held case, reached another way).
 *
 * Scenario: as attack16-recreated-main-held-copy-commits-old-position (a at 0 runs, big at 1 is
 * held, no copy of it fits; the main topic is deleted and created again with no rebalance, the
 * operator raises the DLQ's limit before the new log has a record; four records land, then a
 * deploy), with `maxPublishesInFlight: 1`. big's publish fills the partition's places in flight,
 * so its batch waits inside eachBatch for an acknowledgement, and holdAt pauses the partition
 * while that batch still runs.
 *
 * Seen: the group's commit of the new, empty log is 2, and after the restart n0 and n1 never run.
 * When the held copy is acknowledged, publishInBackground commits nothing (heldPaused), but the
 * waiting batch wakes, takes big (taken, lastTaken) and calls commits.markProgress: the old log's
 * committable offset, 2, goes out onto the new log before holdPaused's resume judges the log.
 * (Gating that markProgress on heldPaused/resumedAtAnchor, tried locally and reverted, makes
 * this test pass.)
 *
 * Code at fault: src/runtime/main-pipeline.ts onBatch, the markProgress after a record is taken
 * (and the maxInFlight wait before it, which does not end on progress.holding): the commit gate
 * added in publishInBackground is not applied to a batch that outlives the pause. (makeRoom's
 * markProgress is not gated either, but its loop ends once the partition is holding; not shown.)
 *
 * Class: an offset of the old log committed onto the new one (attack 9/10/12/14/15/16's family):
 * one commit path gated, the others not.
 *
 * Fix I'd make: gate the commit in one place for every caller (a partition paused for a hold,
 * or resumed at its anchor and not yet judged, is left out by markProgress itself, e.g. a
 * `commitsHeld` set the committer's sendPending skips), and end the maxInFlight wait on
 * progress.holding as the room wait does: the batch breaks, the partition waits paused. That
 * clause alone (`&& !progress.holding` in the maxInFlight wait) makes this test pass, tried
 * locally and reverted; see attack17-in-flight-limit-held-keeps-batch-slot, the same wait's stall.
 *
 * Fixed (e84b88c): the wait for room in flight ends when the partition is holding, and the
 * partition then waits paused, out of the client's slot.
 */

describe('unordered, one publish in flight per partition: a main topic created again (no rebalance) while one of its records is held', () => {
  it('commits nothing of the old log onto the new one from the batch that waited through the hold, so a restart runs each new record', async () => {
    const world = new HeldMainWorld({ consumerOptions: { maxPublishesInFlight: 1 } });
    await aRunsBigHeld(world);
    // Seen: 2, the old log's position, committed onto the new (empty) log by the batch that waited.
    const committedOnNewLog = await limitRaisedBeforeNewLogHasRecords(world);
    expect({ pastNewLogStart: (committedOnNewLog ?? 0) > 0, ran: world.succeeded }).toEqual({ pastNewLogStart: false, ran: ['a', 'n0', 'n1', 'n2', 'n3'] });
  }, 30_000);
});
