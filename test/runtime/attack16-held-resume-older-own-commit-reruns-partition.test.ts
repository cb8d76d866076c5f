import { BIG, HeldMainWorld } from './held-main-world';

/**
 * Fixed: the held partition reads on from an older commit only when it is not its own (isOwnCommit),
 * and then from that commit, not from 0 (main-pipeline.ts resumeOffsetAfterHold).
 *
 * Found by attack 16: duplicates far past the bound (the whole partition runs again from 0).
 *
 * Scenario (unordered, kafkajs-like in-memory broker, commit window of 4 records, a commit per
 * record): a0..a7 run and are committed one by one (each commit stamped as this member's own);
 * big fails and no copy of it fits its tier or the DLQ: it is held, its partition paused. While
 * it waits (a held record may wait for hours) the broker is killed and started again and shows
 * an older commit of this member's, offset 3 with this member's stamp, its later ones lost (the
 * outage judgeLog's doc cites: kafkajs, 366 shown, 767 acknowledged). The operator raises the
 * DLQ's limit; the held copy is acknowledged.
 *
 * Seen: a0..a7 all run a second time (eight duplicates against a bound of four, and on a real
 * partition every record it ever held: the resume seeks to 0). The resume reads the group's
 * commit (3), finds it below what the broker acknowledged (8), takes the log for a new one and
 * seeks to 0; the first batch, from 0, is isNewLog and the partition starts over.
 *
 * Code at fault: src/runtime/main-pipeline.ts startedOverWhilePaused: `read.offset < acknowledged`
 * alone decides, without options.commits.isOwnCommit(...). The rebalance path (groupViewOf ->
 * judgeLog) asks exactly that and reads past an older commit that carries this member's stamp,
 * for this very outage; the held path's copy of the test forgot it.
 *
 * Class: a false positive of a new-log detector (an older commit of the same log, not a new log),
 * whose cost is unbounded duplicates.
 *
 * Fix I'd make: judge as groupViewOf does: below acknowledged and not isOwnCommit(topic,
 * partition, read.offset, read.metadata) -> new log; own -> resume at nextOffset (and commit
 * again, the broker lost it). Better still, share one function with groupViewOf.
 */

describe('unordered: a held record\'s partition, the broker showing an older commit of this member\'s meanwhile', () => {
  it('resumes after the held record, running none of the records before it again', async () => {
    const world = new HeldMainWorld({ consumerOptions: { commit: { intervalMs: 0, maxRecords: 4 } } });
    const { broker, consumer } = world;
    for (let i = 0; i < 8; i++) world.produce(`a${i}`, `a${i}`);
    world.produce(BIG); // fits the main topic, no copy fits
    await world.start();
    await world.runFor(60_000);
    const main = consumer.groups.main;
    const stamp = broker.committedMetadata(main, consumer.mainTopic, 0);
    expect({ held: world.count('publish-held'), committed: world.committed(), stamped: stamp?.startsWith('krt-own:') }).toEqual({ held: 1, committed: 8, stamped: true });

    // The broker killed and started again shows an older commit of this member's (its stamp), the later ones lost.
    broker.commit(main, [{ topic: consumer.mainTopic, partition: 0, offset: '3', metadata: stamp ?? undefined }]);
    world.produce('b0', 'b');
    world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await world.runFor(300_000);
    await world.stop();
    const runs = world.mainRuns.map((value) => value.slice(0, 3));
    const twice = [...new Set(runs.filter((r, i) => r !== 'big' && runs.indexOf(r) !== i))];
    // Seen: ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']: the partition was read again from 0.
    expect({ twice, ranB: runs.includes('b0') }).toEqual({ twice: [], ranB: true });
  }, 30_000);
});
