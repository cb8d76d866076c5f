import { HeldMainWorld } from './held-main-world';
import { aRunsBigHeld, newLogThenLimitRaised } from './recreated-main-held-stages';

/**
 * Fixed: before it resumes, the partition reads the group's commit; below what the broker
 * acknowledged to this member, the log started over, and it is read from 0 (main-pipeline.ts
 * startedOverWhilePaused).
 *
 * Found by attack 15: LOST records (the main-topic side of
 * attack15-recreated-tier-paused-reads-new-log-past-start.test.ts, in the unordered path).
 *
 * Scenario: a runs; big fails and no copy of it fits its tier or the DLQ: it is held, its main
 * partition paused until the copy is acknowledged, then sought to the first record not taken,
 * 2 (main-pipeline.ts holdPaused/resumeHeld). Meanwhile the main topic is deleted and created
 * again with no rebalance (kafkajs rejoins only when the partition ids change), and producers
 * write four records to the new log (offsets 0 to 3). The operator raises the DLQ's limit.
 *
 * Seen: n0 and n1 never run, not even after a restart. The held copy is acknowledged and the
 * partition sought to 2, an offset of the old log, which the new log has (a held record may
 * wait for hours, and the main topic is where traffic comes in). The new log is read from 2:
 * nothing is read below a commit this member acknowledged (the unordered path's test of a new
 * log, new-log.ts isNewLog, is "read from 0"), so it is no new log, and the commits go past.
 *
 * Code at fault: src/runtime/main-pipeline.ts resumeHeld(progress, progress.nextOffset): a seek
 * to an offset remembered across the log's recreation, with no check that the record read there
 * is the one meant. (kafkajs's own position is the same offset: a paused partition fetches
 * nothing, so it never gets the fetch out of range that reads a new, shorter log from 0. The
 * pause is what lets the new log grow past the old position first.)
 *
 * Class: an offset of the old log applied to the new one, by the runtime's own seek (attack 9's
 * family; no offset ever goes down, so no detector by offsets sees it).
 *
 * Fix I'd make: as for the tier's paused head: remember what was read just before the seek's
 * offset (the held record: offset, timestamp, key, value digest) and, on the first batch after
 * the resume, check the record before it (or the partition's earliest offset and log start via
 * the admin API) before taking records; when it is not the one remembered, take a new log (read
 * it from 0, as isNewLog's path does).
 */

describe('unordered: a main topic created again (no rebalance) while one of its records is held', () => {
  it('reads the new log from its first record, so each of its records runs', async () => {
    const world = new HeldMainWorld();
    await aRunsBigHeld(world);
    await newLogThenLimitRaised(world);
    // Seen: ['a', 'n2', 'n3']: the new log was read from 2.
    expect(world.succeeded).toEqual(expect.arrayContaining(['n0', 'n1', 'n2', 'n3']));
  }, 30_000);
});
