import { consumer, refuseOnce, T0, world } from './park-by-key-world';

/**
 * Found while tracing attack 13's order property (session 37): a LOST record. Fixed the same day.
 *
 * Scenario: the DLQ holds two records of key k with the same original offset 0 and different
 * values: one from a main log deleted since, one from the log now (offsets start over on a new
 * log; the replay route strips x-park-state, so nothing names the log a replay came from). The
 * operator replays both into the 1m tier. Each fails once there and succeeds in the 10m tier.
 * One commit of the 10m tier partition is refused, once (the coordinator moving).
 *
 * Seen: r1 runs, fails and holds k at 0 (its copy c1 in the 10m tier); r2 waits its turn. c1
 * succeeds and releases k; the drain runs r2, which fails and holds k at 0 again (its copy c2).
 * The main state with r2's hold is stored, the 10m commit past c1 refused, so c1 is read again:
 * its original offset equals the hold, so it is taken for k's current retry, runs once more and
 * releases r2's hold. c2 then finds k free and is skipped as a stale copy: r2 never succeeds and
 * never reaches the DLQ.
 *
 * Code at fault: src/runtime/key-parking.ts onTierRecord, `current = ... original === holder`:
 * a hold keeps the key and an offset, and two retries of different records can share both
 * (attack13-replay-releases-anothers-hold.test.ts fixed the replay record itself; its copies
 * still carry only the offset). The state is stored before the tier commit (a tier commit past a
 * record without the state that covers it would leave its key held), so a refused tier commit
 * reads a record again under a state that has moved on.
 *
 * Class: a retry's identity by (key, offset) alone.
 *
 * Fixed (b8cd49b): a replayed record's retry holds its key with a retry id of its own (a hash of
 * where the replay was written), kept beside the hold in the state and carried by its copies in
 * x-park-state; a copy is the current retry only with the hold's retry id. c1, read again, is
 * then a stale copy (committed unrun), and c2 runs.
 */
jest.setTimeout(60_000);

describe('park-by-key, two replays of one key naming the same original offset (two logs\' DLQ records), a tier commit refused once', () => {
  it('runs both replays\' retries: the first one\'s copy read again does not release the second\'s hold', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.produce('j', 'z'); // the main position past offset 0
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('j:z') });
    w.failOnce.add('k:old');
    w.failOnce.add('k:new');
    w.replay('k', 'old', 0, 7);
    w.replay('k', 'new', 0, 8);
    // The 10m commit after the first replay's copy succeeded is refused once.
    const tier10m = consumer.tiers[1]!.topic;
    refuseOnce(w.broker, (o) => o.topic === tier10m && w.handled.includes('k:old'));
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    // Seen: ['j:z', 'k:old FAIL', 'k:old', 'k:new FAIL', 'k:old'], and a stale-tier-record for k:new's 10m copy.
    expect(w.handled).toContain('k:old');
    expect(w.handled).toContain('k:new');
    // c1 read again is a stale copy, committed unrun; c2 is the current retry.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toHaveLength(1);
    expect(w.handled.filter((h) => h === 'k:old')).toHaveLength(1);
  });
});
