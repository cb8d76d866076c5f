import { BIG, HeldMainWorld } from './held-main-world';
import { newLogThenLimitRaised } from './recreated-main-held-stages';

/**
 * Found by attack 16 (its recreated-main-held property, seed -226240714, shrunk): LOST records.
 *
 * Scenario: as attack15-recreated-main-topic-held-record-resumes-past-new-log, but the held
 * record is the partition's first (offset 0): big fails, no copy of it fits its tier or the DLQ,
 * it is held and the partition paused; nothing is ever committed (the commit cannot pass the held
 * record). The main topic is deleted and created again with no rebalance, four records land in the
 * new log (0 to 3), and the operator raises the DLQ's limit.
 *
 * Seen: n0 never runs, not even after a restart. startedOverWhilePaused (bde92e9) returns false at
 * once with no acknowledged commit (`acknowledged === undefined || acknowledged === 0n`), so the
 * partition is sought to 1, the old log's next offset, which the new log has; isNewLog (a read
 * from 0 below an acknowledged commit) cannot see it either. The group's commit is -1 before and
 * after the recreation: by commits alone nothing tells the logs apart here.
 *
 * Code at fault: src/runtime/main-pipeline.ts holdPaused/startedOverWhilePaused: the fix for
 * attack 15 judges by the group's commit only, which says nothing while the held record is the
 * first not committed since the log began (a new topic's or a new log's first records).
 *
 * Class: a new-log detector with a blind spot (false negative): an old-log offset sought on the
 * new log (attack 9/15's family).
 *
 * Fix I'd make: what attack 15 proposed and the tiers now do (tier-pipeline.ts readFromNewLog):
 * remember the held record (offset, timestamp, key, value digest), seek to it rather than past
 * it, and check the record read there before taking the next; another record at its offset is a
 * new log, read from 0. The commit comparison can stay as a second proof.
 *
 * Fixed as proposed (main-pipeline.ts readAtAnchor, resume-anchor.ts): the partition is read again
 * from its last record taken and checks it by identity.
 */

describe('unordered: a main topic created again (no rebalance) while its first record is held', () => {
  it('reads the new log from its first record, so each of its records runs', async () => {
    const world = new HeldMainWorld();
    world.produce(BIG); // offset 0: fits the main topic, no copy fits
    await world.start();
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), ran: world.succeeded, committed: world.committed() }).toEqual({ held: 1, ran: [], committed: undefined });

    await newLogThenLimitRaised(world);
    // Seen: ['n1', 'n2', 'n3']: the new log was read from 1.
    expect(world.succeeded).toEqual(expect.arrayContaining(['n0', 'n1', 'n2', 'n3']));
  }, 30_000);
});
