import { HEADERS } from '../../src/naming/headers';
import { tier1m, world } from './park-by-key-world';

/**
 * Found by attack 14: a LOST record (a new tier log committed past records it never read), a
 * case attack 12's fix (tier-turns.ts read(): forget doneUpTo when the log moves back) leaves.
 *
 * Scenario: attack12-recreated-tier-commit-past-new-log.test.ts with the waiting replay read
 * last instead of first: k:a fails on (k held for its ladder); 100 DLQ records of free keys are
 * replayed into the 1m tier (offsets 1 to 100, they run), then one of k, k:old (offset 101),
 * which waits its turn. The 1m tier is deleted and created again with no rebalance (kafkajs
 * reads the new log from 0); five replays land in the new log and run. k's ladder ends: its
 * release runs k:old, the old log's record, and the 1m tier is committed where k:old's own
 * commit says, 102, on a new log of five records. The member restarts after 200 more replays
 * reach the new log.
 *
 * Seen: the new log's records 5 to 101 never run (97 of them): the restart reads from 102.
 *
 * Code at fault: src/runtime/key-parking.ts drain() `ran.push(turns.commit(commit))` with the
 * commit of a waiting record read from the old log, and tier-turns.ts commit(), which takes that
 * offset as done on whatever log the partition now has (doneUpTo, forgotten by read(), no longer
 * caps it, but nothing caps it at what the new log read either).
 *
 * Class: an offset from the old log committed onto the new one (attack 9, 10 and 12's family).
 *
 * Fixed: the tier turns count the times each tier partition's log moved back; a record that
 * waited on an earlier log never matches one read now, never holds this log's commit back, and
 * its run commits nothing on this log (tier-turns.ts ofAnotherLog; key-parking.ts drain).
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier topic created again (no rebalance) while a replay read late from the old log waits its turn', () => {
  it('commits the new log no further than it was read when that replay runs, so every record of it runs', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0: k is held while its retry climbs the ladder
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(w.clock.now()) },
      });
    for (let i = 1; i <= 100; i++) replay(`r${i}`, 'first', 1_000 + i);
    replay('k', 'old', 999); // tier offset 101: waits its turn behind k's hold
    const runs = (value: string) => w.handled.filter((h) => h.endsWith(`:${value}`)).length;
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => runs('first') === 100 && w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
    expect(w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic)).toBe(true);

    w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
    w.broker.readFromEarliest(tier1m!.topic, 0);
    for (let i = 1; i <= 5; i++) replay(`n${i}`, 'second', 2_000 + i);
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => runs('second') === 5 });
    // k's ladder ends (10m, 1h, then the DLQ): its release runs k:old.
    await w.broker.run({ until: w.clock.now() + 3 * 3_600_000, stopWhen: () => w.handled.includes('k:old') });
    await w.broker.run({ until: w.clock.now() + 1_000 });
    await retrying.stop();
    expect(w.handled).toContain('k:old');

    for (let i = 6; i <= 205; i++) replay(`n${i}`, 'second', 2_000 + i);
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 60_000, stopWhen: () => runs('second') === 205 });
    await retrying.stop();
    // Seen: 108 (n6 to n102, at the new log's offsets 5 to 101, never run).
    expect(runs('second')).toBe(205);
  });
});
