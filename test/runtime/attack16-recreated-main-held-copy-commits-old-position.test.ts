import { HeldMainWorld } from './held-main-world';
import { aRunsBigHeld, limitRaisedBeforeNewLogHasRecords } from './recreated-main-held-stages';

/**
 * Found by attack 16 (its recreated-main-held property, seed 1371461218, shrunk): LOST records.
 *
 * Scenario: as attack15-recreated-main-topic-held-record-resumes-past-new-log (a at 0 runs, big
 * at 1 is held, no copy of it fits; the main topic is deleted and created again with no
 * rebalance), but the operator raises the DLQ's limit before any record lands in the new log.
 * Four records land after that (0 to 3); then a deploy (a restart; a rebalance does the same).
 *
 * Seen: the group's commit of the new, empty log is 2, and after the restart n0 and n1 never run.
 * The held copy's acknowledgement (main-pipeline.ts publishInBackground: progress.acknowledged,
 * then markProgress) commits the old log's committable offset, 2: the committer knows nothing of
 * the recreation (2 is above its acknowledged 1, so keep() lets it go). startedOverWhilePaused
 * reads the commit too late to stop it (and, reading after it lands, would even see 2 >= 1 and
 * take the log for the old one); it seeks to 0, but until a record of the new log is read nothing
 * calls commits.startsOver, and any restart or rebalance in between reads the new log from 2.
 *
 * Code at fault: src/runtime/main-pipeline.ts publishInBackground's markProgress for a held
 * record's acknowledgement, which runs before holdPaused's startedOverWhilePaused judges the
 * log; and startedOverWhilePaused, which on a new log seeks to 0 without commits.startsOver (or
 * revoking the progress), so the old log's committable offset stays committable.
 *
 * Class: an offset of the old log committed onto the new one (attack 9/10/12/14/15's family), in
 * the window between the acknowledgement and the new log's first record.
 *
 * Fix I'd make: judge the log before the acknowledgement commits anything for a partition paused
 * for a held record (no markProgress while heldPaused has it: holdPaused's resume commits after
 * its check), and on a new log there revoke the progress and call commits.startsOver at once, as
 * progressOf does for isNewLog.
 *
 * Fixed (main-pipeline.ts holdAt, readAtAnchor): the partition is paused the moment the publish
 * is held (here big was the batch's last record, so no next record paused it and the client read
 * on), nothing of it is committed while it waits, and it is read again from its last record
 * taken, checked by identity: another record there, or the new log's start below it, is a new log.
 */

describe('unordered: a main topic created again (no rebalance) while one of its records is held, the limit raised before the new log has a record', () => {
  it('commits nothing of the old log onto the new one, so a restart runs each of its records', async () => {
    const world = new HeldMainWorld();
    await aRunsBigHeld(world);
    // Seen: 2, the old log's position, committed onto the new (empty) log by the held copy's acknowledgement.
    const committedOnNewLog = await limitRaisedBeforeNewLogHasRecords(world);
    expect({ pastNewLogStart: (committedOnNewLog ?? 0) > 0, ran: world.succeeded }).toEqual({ pastNewLogStart: false, ran: ['a', 'n0', 'n1', 'n2', 'n3'] });
  }, 30_000);
});
