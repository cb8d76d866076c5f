import { BIG, HeldMainWorld } from './held-main-world';
import { CONTROL_RECORD, hidingControlRecords } from './control-record-port';

/**
 * Found by attack 17: LOST records. Fixed: a partition read past its anchor reads the log start
 * (main-pipeline.ts movedOnFrom); at or below the anchor, the log skips the anchor's offset and
 * is read again as a new log (from the group's commit when it lies between, else from the start).
 *
 * Scenario: a deploy reads the main topic on from the group's commit, 5, and the first record it
 * takes, big at 5, is held (no copy of it fits even the DLQ), so this process has no commit
 * acknowledged yet. The main topic is deleted and created again (no rebalance); its new log has
 * eight offsets, and offset 5 is one the client never hands out (here: a transaction's commit
 * marker or an aborted record of an exactly-once producer; compaction does the same). The
 * operator raises the DLQ's limit.
 *
 * Seen: n0 to n4, the new log's first records, never run; n6 and n7 do, and the group commits 8.
 * With no acknowledged commit, resumeOffsetAfterHold says nothing, so the partition is sought to
 * its anchor (big, offset 5). The client's first record there is n6 (offset 6): judgeReadAtAnchor
 * answers 'moved-on' ("compaction or retention removed the anchor, the same log") and the batch
 * is taken as the old log's continuation.
 *
 * Code at fault: src/runtime/resume-anchor.ts judgeReadAtAnchor, `read > at` -> 'moved-on': a
 * record past the anchor proves nothing of the log; a new log with a gap at the anchor's offset
 * (control records, aborted transactions, compaction) reads the same.
 *
 * Control: the same test with an ordinary record n5 at offset 5 passes (another record at the
 * anchor is a new log), checked while writing it.
 *
 * Class: a new log taken for the old one (attack 15/16's family), by a proof that is not one.
 *
 * Fix I'd make: 'moved-on' is no proof. Judge a record past the anchor as unproven: read the
 * partition's earliest offset (retention moved it past the anchor: the same log; 0 or below the
 * anchor: look further) and keep a second, older anchor (the first record this progress took,
 * firstTaken) to seek to and check by identity; only when both are gone read on, otherwise
 * take it for a new log and read it from 0 (commits start over).
 */

describe('unordered: a main topic created again (no rebalance) while the first record a run took is held, the new log with no record at its offset', () => {
  it('reads the new log from its start, not on past the held record\'s offset', async () => {
    const world = new HeldMainWorld({ port: hidingControlRecords });
    for (let i = 0; i < 5; i++) world.produce(`o${i}`);
    await world.start();
    await world.runFor(10_000);
    await world.stop();
    expect(world.committed()).toBe(5);

    world.produce(BIG); // offset 5: fits the main topic, no copy fits
    await world.start(); // a deploy: its first record taken is held, nothing of it committed
    await world.runFor(60_000);
    expect(world.count('publish-held')).toBe(1);

    world.recreateMainTopic();
    for (let i = 0; i < 5; i++) world.produce(`n${i}`);
    world.produce(CONTROL_RECORD); // the new log's offset 5: never handed out
    world.produce('n6');
    world.produce('n7');
    world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await world.runFor(120_000, 10_000);
    await world.stop();
    expect(world.count('routed')).toBe(1); // big's copy went out
    // Seen: ['n6', 'n7'] after the old log's records, and the group's commit 8.
    expect(world.succeeded.filter((v) => v.startsWith('n'))).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n6', 'n7']);
  }, 30_000);
});
