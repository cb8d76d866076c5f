import { HEADERS } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * A tier commit keeps how far its partition was handled behind a record waiting its turn
 * (tier-commit-metadata.ts), and a re-read skips the records done in between. That position is
 * one log's: a tier topic deleted and created again (a Terraform replacement) starts over at
 * offset 0, and none of the new log's records may be taken for done.
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier position kept behind a waiting record, then the tier topic created again', () => {
  it('skips the records done behind the waiting one after a rebalance, and runs every record of the new log', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0: k is held while its retry climbs the ladder
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(T0) },
      });
    replay('k', 'old', 999); // waits its turn behind k's hold
    for (let i = 1; i <= 10; i++) replay(`r${i}`, 'first', 1_000 + i);
    const runs = (value: string) => w.handled.filter((h) => h.endsWith(`:${value}`)).length;
    await w.broker.run({ stopWhen: () => runs('first') === 10 });

    w.broker.rebalance(consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 5_000 });
    expect(runs('first')).toBe(10); // the ten done behind k's replay are not run again

    w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
    w.broker.readFromEarliest(tier1m!.topic, 0);
    for (let i = 1; i <= 15; i++) replay(`n${i}`, 'second', 2_000 + i);
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => runs('second') === 15 });
    await retrying.stop();
    expect(runs('second')).toBe(15);
  });

  it('skips nothing under a kept position whose record at the commit\'s offset is another log\'s, committed at 0 (the tier created again)', async () => {
    const w = world();
    const replay = (key: string, original: number) =>
      w.broker.append(tier1m!.topic, { key: Buffer.from(key), value: Buffer.from('new'), partition: 0, headers: { [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(T0) } });
    for (let i = 0; i < 16; i++) replay(`n${i}`, 3_000 + i);
    // The old log's commit: its record at 0 waited, records 1 to 15 were done.
    const oldLog = `krt-park-tier/1 >g ^${(BigInt(T0) - 60_000n).toString(36)} .\0`;
    for (const group of new Set([consumer.groups.main, consumer.groups.retry])) w.broker.commit(group, [{ topic: tier1m!.topic, partition: 0, offset: '0', metadata: oldLog }]);
    const retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => w.handled.length === 16 });
    await retrying.stop();
    expect(w.handled.filter((h) => h.endsWith(':new')).length).toBe(16);
  });
});
