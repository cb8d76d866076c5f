import { CONTROL_RECORD, hidingControlRecords, hidingRecords } from './control-record-port';
import { BIG, HeldMainWorld } from './held-main-world';

/**
 * The group's commit moved back to one of this member's own (a broker that lost its later
 * commits) while the held record itself is gone from the log: compaction removed it, as a
 * later record of its key came. The first record read at the anchor's offset is then past it
 * ('moved-on'), and only the commit's stamp says the log is the same: an own commit moved back
 * is no new log, so the partition reads on. Taken for another member's (a new log), it would be
 * read again from that older commit, every record since run a second time.
 */
const WINDOW = 4;

describe('unordered: a held record compacted away while the broker shows an older commit of this member\'s own', () => {
  it('reads on past the held record: nothing that ran since that commit runs again', async () => {
    const compacted = new Set<string>();
    const world = new HeldMainWorld({ port: (port) => hidingRecords(port, (m) => compacted.has(m.value?.toString() ?? '')), consumerOptions: { commit: { intervalMs: 0, maxRecords: WINDOW } } });
    const { broker, consumer } = world;
    const main = consumer.groups.main;

    for (let i = 0; i < 2; i++) world.produce(`a${i}`, `a${i}`);
    await world.start();
    await world.runFor(60_000);
    const olderOwn = { offset: world.committed(), metadata: broker.committedMetadata(main, consumer.mainTopic, 0) };
    for (let i = 2; i < 10; i++) world.produce(`a${i}`, `a${i}`);
    world.produce(BIG); // offset 10: fits the main topic, no copy fits
    await world.runFor(60_000);
    expect({ older: olderOwn.offset, held: world.count('publish-held'), committed: world.committed() }).toEqual({ older: 2, held: 1, committed: 10 });

    // The broker shows this run's older commit (its later ones lost); big is compacted away by b0, a later record of its key.
    broker.commit(main, [{ topic: consumer.mainTopic, partition: 0, offset: '2', metadata: olderOwn.metadata ?? undefined }]);
    world.produce('b0');
    compacted.add(BIG);
    world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await world.runFor(300_000);
    await world.stop();
    const runs = world.mainRuns.map((value) => value.slice(0, 3));
    const twice = [...new Set(runs.filter((r, i) => r !== 'big' && runs.indexOf(r) !== i))];
    expect({ routed: world.count('routed'), b0: runs.includes('b0'), twice }).toEqual({ routed: 1, b0: true, twice: [] });
  }, 30_000);
});

/**
 * The converse: the group's commit gone (the main topic deleted and created again, no
 * rebalance) and the new log's record at the held record's offset one no client hands out (an
 * aborted record). The read at the anchor's offset is past it, which alone would read as
 * compaction; the commit that moved back below what was acknowledged, and is not this member's,
 * says the log is new: it is read from its start, and its first records run.
 */
describe('unordered: a held record\'s main topic created again, the group\'s commit gone and the new log hiding the anchor\'s offset', () => {
  it('reads the new log from its start: its records before the anchor\'s offset run', async () => {
    const world = new HeldMainWorld({ port: hidingControlRecords });
    for (let i = 0; i < 5; i++) world.produce(`a${i}`, `a${i}`);
    world.produce(BIG); // offset 5
    await world.start();
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), committed: world.committed() }).toEqual({ held: 1, committed: 5 });

    world.recreateMainTopic();
    for (let i = 0; i < 5; i++) world.produce(`n${i}`, `n${i}`);
    world.produce(CONTROL_RECORD); // the new log's offset 5, the anchor's: never handed out
    for (let i = 6; i < 8; i++) world.produce(`n${i}`, `n${i}`);
    world.maxMessageBytes = 4_000;
    await world.runFor(300_000);
    await world.stop();
    expect(world.succeeded.filter((v) => v.startsWith('n')).sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n6', 'n7']);
  }, 30_000);
});
