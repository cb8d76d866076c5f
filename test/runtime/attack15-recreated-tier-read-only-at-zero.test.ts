import { HEADERS } from '../../src/naming/headers';
import { consumer, tier1m, world } from './park-by-key-world';

const tier10m = consumer.tiers[1]!;

/**
 * Fixed: tier-turns.ts read() takes another record at the last one's offset for a new log, and
 * wait() matches a waiting record by its identity (record-identity.ts).
 *
 * Found by attack 15: a LOST record (attack 14's, at the one offset its fix cannot see).
 *
 * Scenario: k:a fails on (k held for its ladder; its copy waits a minute in the 1m tier). A
 * DLQ record of k, k:old, is replayed into the 10m tier, its first record (offset 0): k is
 * busy, so it waits its turn, in memory. The 10m tier is deleted and created again with no
 * rebalance (kafkajs reads the new log from 0). The new log's first record (offset 0) is
 * another replay of k, k:new: k is still held, so it should wait its turn behind k:old.
 *
 * Seen: k:new never runs, not even after a restart. The log moving back is told only by a
 * record read below the last one read (tier-turns.ts read(): `offset < last`); the old log was
 * read only at 0, and the new log's first record is at 0 too, so nothing moved back, k:old is
 * still "of this log", and TierTurns.wait() takes k:new for k:old delivered again (same topic,
 * partition and offset): not queued, not committed. k's 1m copy then comes to the new log's
 * offset 1 and runs; when the ladder ends, the release runs k:old and the 10m tier is
 * committed past offset 0 of the new log: k:new is committed past without ever running.
 *
 * Code at fault: src/runtime/tier-turns.ts read(), which takes a log for the same one unless
 * an offset goes DOWN (strictly); a new log read from 0 after an old log read only at 0 (or,
 * in general, a new log whose first record read is at or past the last one read) is missed.
 * wait()'s identity by (topic, partition, offset) then matches a record of another log.
 *
 * Class: identity by offset that outlives the log it names (attack 9, 12 and 14's family); a
 * detector of "a new log" by offsets alone is blind at the boundary.
 *
 * Fix I'd make: a record read again at the offset of a waiting one is the same only if it is
 * the same record: compare its timestamp (and key and a digest of its value, as the unordered
 * path's own-commit check does) with the waiting record's; any difference means the log moved
 * back (count it, as read() does), whatever the offsets say.
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier topic read only at offset 0 created again (no rebalance) while that record waits its turn', () => {
  it("runs the new log's first record too, in its turn", async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0: k is held while its retry climbs the ladder
    let retrying = await w.start();
    // k:a failed at the main topic: its 1m copy (due in a minute) holds k.
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => w.handled.includes('k:a FAIL') });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier10m.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(w.clock.now()) },
      });
    replay('k', 'old', 999); // 10m offset 0: waits its turn behind k's hold
    await w.broker.run({ until: w.clock.now() + 5_000, stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier10m.topic) });
    expect(w.events.some((e) => e.type === 'parked' && e.record.topic === tier10m.topic)).toBe(true);
    expect(w.handled).not.toContain('k:old');

    w.broker.recreateTopic(tier10m.topic, { rebalance: false });
    w.broker.readFromEarliest(tier10m.topic, 0);
    replay('k', 'new', 2_001); // new log offset 0: k is held, it must wait its turn
    // k's ladder ends (1m, 10m, 1h, then the DLQ): its release runs k's waiting replays.
    await w.broker.run({ until: w.clock.now() + 3 * 3_600_000 });
    await retrying.stop();
    expect(w.handled).toContain('k:old');
    // A restart reads the 10m tier again from its commit.
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 60_000 });
    await retrying.stop();
    // Seen: k:new never runs (the 10m tier committed past the new log's offset 0).
    expect(w.handled).toContain('k:new');
  });
});
