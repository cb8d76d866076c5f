import { HEADERS } from '../../src/naming/headers';
import { tier1m, world } from './park-by-key-world';

/**
 * Found by attack 14: a LOST record (a new tier log's record taken for an old log's waiting one).
 *
 * Scenario: k:a fails on (k held for its ladder). A DLQ record of k, k:old, is replayed into
 * the 1m tier (offset 1, after k:a's 1m copy at 0): k is busy, so it waits its turn, in memory.
 * The 1m tier is deleted and created again with no rebalance (kafkajs reads the new log from
 * offset 0). The new log gets a replay of a free key at 0 (it runs) and another replay of k,
 * k:new, at 1. k is still held, so k:new should wait its turn behind k:old.
 *
 * Seen: k:new never runs, not even after a restart. TierTurns.wait() takes it for k:old
 * delivered again (same tier topic, partition and offset), returns false, and onTierRecord
 * returns without committing or queueing it. When k's ladder ends, the release runs k:old (the
 * old log's entry) and commits the 1m tier past offset 1 of the new log: k:new is committed
 * past without ever running.
 *
 * Code at fault: src/runtime/tier-turns.ts wait() (`same`: topic, partition and offset only)
 * together with read(): when the log moves back, read() forgets doneUpTo and the anchors of the
 * old log, but the waiting records read from the old log stay, and their offsets now name
 * records of the new log.
 *
 * Class: identity by offset that outlives the log it names (the family of attack 9 and attack
 * 12's recreated topics: a high-water mark, here a queue entry, from the old log judged
 * against the new one).
 *
 * Fixed: the tier turns count the times each tier partition's log moved back; a record that
 * waited on an earlier log never matches one read now, never holds this log's commit back, and
 * its run commits nothing on this log (tier-turns.ts ofAnotherLog; key-parking.ts drain).
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier topic created again (no rebalance) while a replay of a held key waits its turn', () => {
  it('runs the new log\'s record at the waiting record\'s offset too, in its turn', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0: k is held while its retry climbs the ladder
    let retrying = await w.start();
    // k:a's 1m copy (tier offset 0) ran and failed on: k's retry is in the 10m tier now.
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(w.clock.now()) },
      });
    replay('k', 'old', 999); // tier offset 1: waits its turn behind k's hold
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
    expect(w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic)).toBe(true);

    w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
    w.broker.readFromEarliest(tier1m!.topic, 0);
    replay('f', 'free', 2_000); // new log offset 0: its key is free, it runs
    replay('k', 'new', 2_001); // new log offset 1: k is held, it must wait its turn
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => w.handled.includes('f:free') });
    // k's ladder ends (10m, 1h, then the DLQ): its release runs k's waiting replays.
    await w.broker.run({ until: w.clock.now() + 3 * 3_600_000 });
    await retrying.stop();
    expect(w.handled).toContain('k:old');
    // A restart reads the 1m tier again from its commit.
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 60_000 });
    await retrying.stop();
    // Seen: k:new never runs (the 1m tier committed at 2 of the new log).
    expect(w.handled).toContain('k:new');
  });
});
