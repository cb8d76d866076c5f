import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack7), fixed (a state id on the state and its copies: PARK_STATE_HEADER); was: after the main topic is deleted and created again, a retry of the old
 * log that fails once more under the new state is lost: its copy in the next tier is
 * committed unrun as a stale copy, and never reaches the DLQ.
 *
 * Scenario: k:a (old log offset 3) fails into the 1m tier. The main topic is recreated
 * (the group's commits go, the tiers stay); the new log has one record (position 1). The
 * 1m copy, stamped before `since`, runs as it should (unjudged, its key free) and fails
 * again into the 10m tier. It takes no hold: its original offset (3) is not below the new
 * state's position (1). Its 10m copy is stamped after `since`, so it is judged by the hold
 * as ever: key not held, so a "stale copy", committed without running.
 *
 * Code: src/runtime/key-parking.ts, onTierRecord, the `!current` branch after `handle()`
 * (`original < state.position && mayHold(...)`: no hold for an offset of another log), and
 * `unjudged()` / `failedBeforeState()` in src/runtime/park-state.ts, which tell a gone
 * log's retry only by its timestamp, which the next hop no longer carries (each tier copy is
 * stamped with the moment it failed: src/runtime/destination-record.ts).
 *
 * Class: an identity (main offset) read across logs; a property of the record ("from a gone
 * state") not carried along the ladder.
 *
 * The same hole without the mark: a record of the old log replayed from the DLQ after the
 * recreation (`krt dlq replay`, through the first tier, `x-replayed-from-dlq`) runs unjudged,
 * fails, takes no hold for the same reason, and its next copy (the marker is not carried to
 * the next hop: passThroughHeaders drops it) is skipped as stale. Second case below.
 *
 * Fix I'd make: an unjudged record that fails on into a later tier must leave its next copy
 * unjudged too, whatever its offset: stamp tier copies with an id of the state they were
 * written under (a header; the state keeps its id beside `!t`) and take a copy that names
 * another state, or a copy of an unjudged record (carry the marker), as unjudged on every
 * hop. (Judging by `x-first-failed-at` instead of the hop's stamp would cover the first case
 * only: a replayed record's next hop starts its first-failure moment again.)
 */

describe('the main topic recreated, then a retry of its old log fails again', () => {
  it('takes the old log\'s retry on up the ladder to the DLQ instead of skipping its next copy as stale', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    for (const v of ['0', '1', '2']) w.produce('other', v);
    w.produce('k', 'a'); // offset 3 of the old log
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    w.clock.setTimer(10_000, () => undefined); // ten seconds on: a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000 }); // k:a waits in the 1m tier
    expect(w.handled).toEqual(['other:0', 'other:1', 'other:2', 'k:a FAIL']);

    w.broker.recreateTopic(consumer.mainTopic);
    w.produce('n', 'new-0'); // the new log: position 1 once it ran
    await w.broker.run({ until: T0 + 3 * 3_600_000 }); // past 1m + 10m + 1h
    await retrying.stop();

    // The 1m copy ran (unjudged): so far as designed.
    expect(w.handled.filter((h) => h === 'k:a FAIL').length).toBeGreaterThanOrEqual(2);
    // Seen: one stale-tier-record event for the 10m copy, k:a FAIL only twice, the DLQ empty.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.key?.toString())).toEqual(['k']);
  });

  it('takes an old-log record replayed from the DLQ on up the ladder when it fails again', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.broker.recreateTopic(consumer.mainTopic); // k:a (offset 3) went to the DLQ in the old log
    w.produce('n', 'new-0'); // the new log: position 1 once it ran
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    // `krt dlq replay` of the old log's k:a (offset 3 there) through the first tier, due now (replay-route.ts replayMessage).
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from('a'),
      partition: 0,
      headers: { 'x-replayed-from-dlq': `${consumer.dlqTopic}/0-3`, 'x-replay-count': '1', 'x-attempt': '2', 'x-due-at': String(T0), 'x-original-topic': consumer.mainTopic, 'x-original-partition': '0', 'x-original-offset': '3' },
    });
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();

    expect(w.handled.filter((h) => h === 'k:a FAIL').length).toBeGreaterThanOrEqual(1); // the replay ran
    // Seen: k:a FAIL once (the replay), a stale-tier-record event for its 10m copy, the DLQ empty.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.key?.toString())).toEqual(['k']);
  });
});
