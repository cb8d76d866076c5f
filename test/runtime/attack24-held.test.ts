import { HEADERS } from '../../src/naming/headers';
import { attackWorld, consumer } from './attack21-world';

/**
 * Attack 24: scenarios tried against 03c5c1e that held.
 *
 * Attack 23's scenario with a DLQ replay of k (original offset 5, so it waits behind the
 * position) written into the 10m tier ahead of a's 10m copy: on restart b's given-up copy is
 * read first, waits behind 2 as k's first turn, and runs before c; the replay after.
 * (Read in the other order, see attack24-earlier-turn-puts-given-up-copy-after-newer.)
 */
describe('attack 24: what held', () => {
  it('a given-up copy that is its key\'s first turn runs before the key\'s newer parked record, a replay behind it', async () => {
    const w = attackWorld({ reaction: 'confluent' });
    const [tier1m, tier10m] = consumer.tiers;
    w.fails.set('k:a', 2);
    w.fails.set('k:b', 1);
    w.produce('k', 'a');
    w.produce('k', 'b');
    w.produce('k', 'c');
    w.crashAt((offsets) => w.runs.includes('k:b@0 FAIL') && offsets.some((o) => w.isStateCommit(o)));
    w.onEvent((e) => {
      if (e.type !== 'parked' || e.record.message.value?.toString() !== 'c') return;
      w.broker.append(tier10m!.topic, {
        key: Buffer.from('k'),
        value: Buffer.from('r'),
        partition: 0,
        headers: {
          [HEADERS.attempt]: '3',
          [HEADERS.dueAt]: String(w.clock.now()),
          [HEADERS.originalTopic]: consumer.mainTopic,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: '5',
          [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/0:7`,
        },
      });
    });
    await w.start();
    await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
    expect(w.faulty.crashes).toBe(1);
    expect(w.broker.records(tier1m!.topic, 0).map((r) => r.value?.toString())).toEqual(['a', 'b']);
    expect(w.broker.records(tier10m!.topic, 0).map((r) => r.value?.toString())).toEqual(['r', 'a']);
    w.advanceBy(5 * 60_000);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    const after = w.runs.slice(runsBefore).filter((r) => r.startsWith('k:') && r.endsWith(' ok')).map((r) => r.replace(/@\d+ ok$/, ''));
    expect(after.filter((l) => l !== 'k:a')).toEqual(['k:b', 'k:c', 'k:r']);
  }, 60_000);
});
