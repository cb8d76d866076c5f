import { hidingRecords } from './control-record-port';
import { BIG, HeldMainWorld } from './held-main-world';

/**
 * The held record compacted away, the log start still below it, and the group's commit not this
 * member's own (another member's, or one without a stamp): the first record read at the anchor's
 * offset is past it, which a new log hiding that offset reads the same (attack 17). The partition
 * is read again from the group's commit as from a new log: records after the commit run again
 * (duplicates, bounded by what was not committed), none is skipped.
 */
describe('unordered: a held record compacted away while the group\'s commit is not this member\'s', () => {
  it('reads the partition again from the group\'s commit: every record runs, none is skipped', async () => {
    const compacted = new Set<string>();
    const world = new HeldMainWorld({ port: (port) => hidingRecords(port, (m) => compacted.has(m.value?.toString() ?? '')), consumerOptions: { commit: { intervalMs: 0, maxRecords: 4 } } });
    const { broker, consumer } = world;
    for (let i = 0; i < 10; i++) world.produce(`a${i}`, `a${i}`);
    world.produce(BIG); // offset 10: fits the main topic, no copy fits
    await world.start();
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), committed: world.committed() }).toEqual({ held: 1, committed: 10 });

    // The broker shows an older commit without this member's stamp; big is compacted away by b0, a later record of its key.
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '6' }]);
    world.produce('b0');
    compacted.add(BIG);
    world.maxMessageBytes = 4_000;
    await world.runFor(300_000);
    await world.stop();
    const runs = world.mainRuns.map((value) => value.slice(0, 3));
    expect(runs).toContain('b0');
    // a6..a9 ran again (after the commit, 6), nothing before it did: duplicates only where the commit was not.
    const twice = [...new Set(runs.filter((r, i) => r !== 'big' && runs.indexOf(r) !== i))].sort();
    expect(twice).toEqual(['a6', 'a7', 'a8', 'a9']);
  }, 30_000);
});
