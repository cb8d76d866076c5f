import { HEADERS } from '../../src/naming/headers';
import { tier1m, world } from './park-by-key-world';

/**
 * Found by attack 12: a LOST record (tier records of a new log committed past without running).
 *
 * Scenario: k:a fails for good, so k is held for its ladder. An operator replays 101 DLQ records
 * into the 1m tier: k's first (k busy: it waits its turn), then 100 of free keys, which run.
 * The 1m tier topic is deleted and created again (a Terraform replacement); kafkajs rejoins only
 * when partition ids change, so there is no rebalance: it reads the new log from offset 0
 * (readFromEarliest). Five replays land in the new log and run. k's ladder ends: its release runs
 * k's old replay, a turn of this generation, and the 1m tier is committed at 102, the old log's
 * "furthest commit asked", on a new log of five records. The member restarts (a deploy); by
 * then 200 more records are in the new log: it reads from 102, and records 5 to 101 of the new
 * log never run.
 *
 * Seen: 97 of the 200 records appended after the release never run (the new log's offsets 5 to
 * 101); the commit of the 1m tier stood at 102 while the new log ended at 5.
 *
 * Code at fault: src/runtime/tier-turns.ts commit(): `doneUpTo` is the furthest commit asked in
 * the generation, whichever log it was asked of, and handledBelow() (the kept position, in
 * key-parking.ts withTierMetadata) takes the same number. "Every record below it is done or
 * waiting" holds for one log only; doneBeforeLoad drops the loaded position when the log moves
 * back, but nothing drops the generation's `doneUpTo`.
 *
 * Class: a high-water mark that outlives the log it measured (the same family as attack 9's main
 * topic created again with no rebalance).
 *
 * Fix I'd make: when a tier record comes below the last one read of its partition (the log moved
 * back: tierRead in doneBeforeLoad already sees it), reset that tier partition's `doneUpTo` in the
 * turns to the record's offset, and forget (or re-judge against the new log) the waiting records
 * of that tier read from the old log, so no commit of the new log is asked past what it read.
 *
 * Fixed: a tier record read below the last one read of its partition makes the turns forget how
 * far the old log was handled (tier-turns.ts read), so the new log is committed no further than it was done.
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier topic created again (no rebalance) while a replay waits its turn', () => {
  it('commits the new log no further than it was read, so every record of it runs', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0: k is held while its retry climbs the ladder
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(w.clock.now()) },
      });
    replay('k', 'old', 999); // waits its turn behind k's hold
    for (let i = 1; i <= 100; i++) replay(`r${i}`, 'first', 1_000 + i);
    const runs = (value: string) => w.handled.filter((h) => h.endsWith(`:${value}`)).length;
    await w.broker.run({ stopWhen: () => runs('first') === 100 });

    w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
    w.broker.readFromEarliest(tier1m!.topic, 0);
    for (let i = 1; i <= 5; i++) replay(`n${i}`, 'second', 2_000 + i);
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => runs('second') === 5 });
    // k's ladder ends (1m, 10m, 1h): its release runs k's old replay.
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
