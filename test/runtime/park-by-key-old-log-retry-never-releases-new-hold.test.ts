import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack7), fixed (a state id on the state and its copies: PARK_STATE_HEADER); was: after the main topic is deleted and created again, a retry of the old
 * log is taken for the current retry of the NEW log's record at the same offset: it releases
 * that record's hold, the key's parked records run before the new record's retry, and then
 * the new record's own retry is committed unrun as a stale copy (lost: never handled, not
 * in the DLQ).
 *
 * Scenario: k:a (old log, offset 0) fails into the 1m tier. Ten seconds on the main topic is
 * recreated (the group's commits go, the tiers stay). The new log's k:b (offset 0 again)
 * fails: the new state holds k at offset 0; k:c (offset 1) is parked. k:a's copy comes due:
 * its original offset is 0, the hold's offset is 0, so `current` is true and it runs as k's
 * retry; its success releases k, k:c runs, and k:b's own copy (stamped after `since`, key not
 * held) is skipped as stale.
 *
 * Code: src/runtime/key-parking.ts, onTierRecord:
 * `const current = holder !== undefined && original !== undefined && original === holder;`
 * compares offsets of two different logs; the `since` mark (`failedBeforeState` in
 * src/runtime/park-state.ts) is consulted only for records that are NOT current.
 *
 * Class: identity by a bare offset across logs (offsets start over when a topic is
 * recreated); a check for "from a gone state" placed after the check it should guard.
 *
 * Fix I'd make: a tier record that failed before the state began (`failedBeforeState`, by
 * its first failure `x-first-failed-at` rather than the hop's own stamp) is never the current
 * retry of a hold of this state: it is unjudged (runs if its key is free, else waits its
 * turn behind the hold), and releases nothing.
 */

describe('the main topic recreated while a retry of its old log waits, and the new log fails the same key at the same offset', () => {
  it('runs the new record\'s retry before the key\'s later records, and never skips it as stale', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // offset 0 of the old log
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    w.clock.setTimer(10_000, () => undefined); // a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000 });
    expect(w.handled).toEqual(['k:a FAIL']); // k:a waits in the 1m tier until T0 + 60 s

    w.broker.recreateTopic(consumer.mainTopic);
    w.failOnce.add('k:b');
    w.produce('k', 'b'); // offset 0 of the new log: fails, k held at 0, due at T0 + 70 s
    w.produce('k', 'c'); // offset 1: parked behind k:b
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await retrying.stop();

    // Seen: ['k:a FAIL', 'k:b FAIL', 'k:a', 'k:c'] and a stale-tier-record event for k:b's copy.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    const news = w.handled.filter((h) => h.startsWith('k:b') || h.startsWith('k:c'));
    expect(news).toEqual(['k:b FAIL', 'k:b', 'k:c']);
  });
});
