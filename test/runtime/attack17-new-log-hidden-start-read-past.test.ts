import { BIG, HeldMainWorld } from './held-main-world';
import { CONTROL_RECORD, hidingControlRecords, withoutHighWatermark } from './control-record-port';

/**
 * Found by attack 17 (its widened held-anchor property, seed 17, shrunk; with the maxInFlight
 * wait patched locally so the property got past attack17-in-flight-limit-held-*): LOST records.
 *
 * Scenario: a at 0 runs and is committed (1, acknowledged); big at 1 is held (no copy fits), its
 * partition paused. The main topic is deleted and created again (no rebalance), and the new log's
 * offset 0 is one no client hands out: the producer's transaction the deletion broke was aborted
 * (its record and the abort marker are skipped), or a commit marker, or compaction. The new log's
 * records n1 to n3 follow. The operator raises the DLQ's limit.
 *
 * Seen: n1 never runs. resumeOffsetAfterHold reads the group's commit: none, below the acknowledged
 * 1, not this member's own, so it knows the log is new and seeks to 0. But nothing is started over
 * there: the new log is recognised only by its first record being at offset 0 (progressOf's
 * isNewLog(first, acknowledged): `first === 0n`). The first record handed out is n1, at 1, below
 * the progress's next offset 2: progress.resume takes it for a record this member finished (the
 * old log's big at 1) and seeks past it, to 2.
 *
 * Code at fault: src/runtime/main-pipeline.ts holdPaused/resumeOffsetAfterHold, which finds a new
 * log and leaves the judgement to the next batch, and src/runtime/new-log.ts isNewLog, which
 * takes only a record at exactly offset 0 for a new log's start (the client reads from the log's
 * start; its first record there need not be at 0). The same rule, without a hold, reads any main
 * partition whose new log hides offset 0 past its first records (kafkajs's read from the earliest
 * after a fetch out of range, attack 9's recreated-topic-without-rebalance path): the second case.
 * Controls, checked while writing them: with a plain record at offset 0 both cases pass.
 *
 * Class: a new log taken for the old one, by an offset taken for a record (as
 * attack17-anchor-gap-in-new-log-reads-on: offsets with no record in them).
 *
 * Fix I'd make: when resumeOffsetAfterHold finds the group's commit gone or below what was
 * acknowledged (not its own), start the partition over there (startOver, partitions.delete) before
 * it seeks to 0, rather than leaving it to a record at offset 0; and in progressOf take the first
 * batch after a seek or reset to the log's start (not only a record at 0) for the start.
 *
 * The held case is fixed: a resume that finds the group's commit moved back starts the partition
 * over there (main-pipeline.ts holdPaused). The case without a hold is fixed too (session 33): a
 * batch below the partition's next offset with no rebalance is judged by the last record taken
 * (resume-anchor.ts judgeRewind): the log's high watermark before it, or another record at its
 * offset, is a new log; a batch ending before it is sought to it and judged there.
 */

describe('unordered: a main topic created again (no rebalance) while a record is held, its new log with no record at offset 0', () => {
  it('runs every record of the new log once the limit is raised', async () => {
    const world = new HeldMainWorld({ port: hidingControlRecords });
    await world.start();
    world.produce('a');
    world.produce(BIG); // offset 1: fits the main topic, no copy fits
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), committed: world.committed() }).toEqual({ held: 1, committed: 1 });

    world.recreateMainTopic();
    world.produce(CONTROL_RECORD); // the new log's offset 0: an aborted record, never handed out
    for (let i = 1; i < 4; i++) world.produce(`n${i}`);
    world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await world.runFor(120_000, 10_000);
    await world.stop();
    expect(world.count('routed')).toBe(1); // big's copy went out
    // Seen: ['n2', 'n3'].
    expect(world.succeeded.filter((v) => v.startsWith('n'))).toEqual(['n1', 'n2', 'n3']);
  }, 30_000);
});

describe('unordered: a main topic created again (no rebalance), read from its earliest record, its new log with no record at offset 0', () => {
  it('runs every record of the new log, not only those past the old log\'s commit', async () => {
    const world = new HeldMainWorld({ port: hidingControlRecords });
    const { broker, clock, consumer } = world;
    await world.start();
    for (const value of ['a', 'b', 'c']) world.produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    expect(world.committed()).toBe(3);

    world.recreateMainTopic();
    world.produce(CONTROL_RECORD); // the new log's offset 0: an aborted record, never handed out
    world.produce('n1');
    broker.readFromEarliest(consumer.mainTopic, 0); // kafkajs: its fetch at 3 is out of range on the new log (its end is 2)
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    await world.stop();
    // Seen: []: n1 at 1 is below the progress's next offset 3, taken for a finished record, and read past.
    expect(world.succeeded.filter((v) => v.startsWith('n'))).toEqual(['n1']);
  });
});

describe('unordered: the same, with a client that does not tell the high watermark', () => {
  it('runs the new log\'s records once a record reaches the old log\'s last record taken', async () => {
    const world = new HeldMainWorld({ port: (port) => withoutHighWatermark(hidingControlRecords(port)) });
    const { broker, clock, consumer } = world;
    await world.start();
    for (const value of ['a', 'b', 'c']) world.produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });

    world.recreateMainTopic();
    world.produce(CONTROL_RECORD);
    world.produce('n1');
    broker.readFromEarliest(consumer.mainTopic, 0);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    const beforeMore = world.succeeded.filter((v) => v.startsWith('n'));
    for (const value of ['n2', 'n3']) world.produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    await world.stop();
    // Until a record reaches offset 2 (c's), nothing tells the log is new: n1 waits, it is not read past.
    expect({ beforeMore, after: world.succeeded.filter((v) => v.startsWith('n')), committed: world.committed() }).toEqual({ beforeMore: [], after: ['n1', 'n2', 'n3'], committed: 4 });
  });
});
