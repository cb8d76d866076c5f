import { attackWorld, consumer } from './attack21-world';

/**
 * Fixed: a key's next turn is the one whose place (`behind`) comes first (tier-turns.ts next).
 * Attack 24, finding: ORDER. A copy from below a give-up's mark waits `behind: original + 1`,
 * but drain() only ever looks at its key's FIRST waiting turn (tier-turns next(): the oldest by
 * arrival). Queued after an earlier turn of its key that waits `behind: state.position` (here a
 * DLQ replay of k; any unjudged copy that came due while k was busy does), its smaller `behind`
 * is never looked at: that earlier turn lets every parked record of k below the position run
 * first, and the given-up record's copy runs after its key's newer record.
 *
 * Scenario (attack 23's, plus a replay, and a's 10m copy failing again after the restart): k's a
 * (0) fails on main and in the 1m tier (k held at 0); b (1) and c (2) park behind it. An
 * operator replays an old DLQ record r of k into the 1m tier (original offset 5): k is held, it
 * waits. a's 10m copy succeeds, the release drains b, which fails, its 1m copy is written
 * (after r), and the process dies as it commits (stored: k@0, b and c parked). Down 5 minutes;
 * retention deletes main offsets 0..1 (b), not c. On restart a's 10m copy runs again and fails
 * this time (the downstream is flaky): k stays held at 0 (a into the 30m tier). r is read
 * first: it waits behind the position (3); b's copy, from below the give-up mark (2), waits
 * behind 2, SECOND in k's queue. c is re-read and parks.
 *
 * Seen: a's next copy succeeds, the release drains k: next parked c (2) < the first turn's
 * behind (3), so c runs (`k:c@0 ok`), then r, then b's copy (`k:b@1 ok`): b's older update lands
 * after c's, the ORDER attack 23 fixed for a copy that is its key's only turn.
 *
 * Code at fault: key-parking.ts drain(): `turns.next(partition, hash)` is the key's oldest turn
 * by arrival, and only its `behind` is compared with the next parked record; tier-turns.ts
 * wait() appends, so a later turn with a smaller `behind` (original + 1) waits for it.
 *
 * Class: ORDER (a given-up record's only carrier runs after a newer record of its key).
 *
 * Fix I'd make: drain() takes the key's turn with the least `behind` (ties by arrival), or
 * wait() inserts a turn before the key's turns with a greater `behind`, so a turn placed at its
 * record runs before the parked records past its place whatever came due before it.
 */
describe('attack 24: a given-up copy queued after an earlier turn of its key', () => {
  it('runs b (given up, its copy its only carrier) before c, newer, of the same key', async () => {
    const w = attackWorld({ reaction: 'confluent' });
    const [tier1m] = consumer.tiers;
    w.fails.set('k:a', 2);
    w.fails.set('k:b', 1);
    w.produce('k', 'a'); // 0
    w.produce('k', 'b'); // 1
    w.produce('k', 'c'); // 2
    w.crashAt((offsets) => w.runs.includes('k:b@0 FAIL') && offsets.some((o) => w.isStateCommit(o)));
    await w.start();
    await w.runFor(5 * 60_000, () => w.runs.includes('k:a@1 FAIL'));
    expect(w.runs).toContain('k:a@1 FAIL');
    w.replay('k', 'r', 5); // an old DLQ record of k, replayed into the 1m tier: k is held, it waits its turn
    await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
    expect(w.faulty.crashes).toBe(1);
    expect(w.broker.records(tier1m!.topic, 0).map((r) => r.value?.toString())).toEqual(['a', 'r', 'b']);
    const stored = w.parkState();
    expect([...stored.held.values()]).toEqual([0n]);
    expect([...stored.parked.keys()].sort()).toEqual([1n, 2n]);
    w.advanceBy(5 * 60_000);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2); // b deleted, c still there
    w.fails.set('k:a', 3); // a's 10m copy fails once more when it runs again: k stays held a while
    const runsBefore = w.runs.length;
    const eventsBefore = w.events.length;
    await w.start();
    await w.runFor(3 * 3_600_000);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.runs.slice(runsBefore)).toContain('k:a@2 FAIL');
    // Both waited in k's queue before the release, r first (the mechanism, not a late read of b's copy).
    const waited = w.events.slice(eventsBefore).filter((e) => e.type === 'parked' && e.record.topic === tier1m!.topic).map((e) => (e as { record: { message: { value: Buffer | null } } }).record.message.value?.toString());
    expect(waited).toEqual(['r', 'b']);
    const after = w.runs.slice(runsBefore).filter((r) => r.startsWith('k:') && r.endsWith(' ok')).map((r) => r.replace(/@\d+ ok$/, ''));
    expect(after.filter((l) => l !== 'k:a' && l !== 'k:r')).toEqual(['k:b', 'k:c']); // fails on 03c5c1e: ['k:c', 'k:b']
  }, 60_000);
});
