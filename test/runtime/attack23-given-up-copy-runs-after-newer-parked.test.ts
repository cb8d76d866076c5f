import { attackWorld, consumer } from './attack21-world';

/**
 * Fixed (a copy from below a give-up's mark waits in its record's place, `behind: original + 1`).
 * Attack 23, finding: ORDER. The copy of a given-up record read AFTER the give-up runs after
 * its key's newer parked records, although it succeeds at its first hop.
 *
 * Scenario (attack 21's, plus one more record of k): k's a (0) fails on main and in the 1m tier
 * (k held at 0); b (1) and c (2) park behind it. a's 10m copy succeeds, the release drains b,
 * which fails, its 1m copy is written, and the process dies as it commits (stored: k@0, b and c
 * parked). Down 5 minutes; retention deletes main offsets 0..1 (b), not c. The next load gives b
 * up (k marked `@0*`, shed mark 2).
 *
 * Seen: a's 10m copy runs again, the release drains c (`k:c@0 ok`), and only then b's 1m copy
 * (`k:b@1 ok`): b's older update lands after c's. When b's copy is read BEFORE the give-up
 * (fdf18ff: copyOf turn, behind b+1) it runs before c, as docs/runtime.md promises ("run in the
 * record's place (before the key's newer records)"); read after it, it is not.
 *
 * Code at fault: key-parking.ts onTierRecord: a copy judged unproven (below the mark, key
 * marked, newer than the hold) waits `behind: state.position` (or runs at once if k is free
 * by then), so drain() runs every parked record of k below the position first; the give-up
 * forgot where the given-up record stood.
 *
 * Class: ORDER (a given-up record's only carrier runs after a newer record of its key; docs
 * accept lost order only for a given-up copy that goes on to a later tier).
 *
 * Fix I'd make: a copy newer than its key's marked hold and below the shed mark waits as the
 * copyOf turn does: `behind: original + 1` (copyOf: original), so it runs before the key's
 * parked records past it; for a free key, the same turn when the key still has parked records
 * newer than the copy's original.
 */
describe('attack 23: the copy of a given-up record and its key\'s newer parked record', () => {
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
    await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
    expect(w.faulty.crashes).toBe(1);
    expect(w.broker.records(tier1m!.topic, 0).map((r) => r.value?.toString())).toEqual(['a', 'b']);
    const stored = w.parkState();
    expect([...stored.held.values()]).toEqual([0n]);
    expect([...stored.parked.keys()].sort()).toEqual([1n, 2n]);
    w.advanceBy(5 * 60_000);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2); // b deleted, c still there
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    const after = w.runs.slice(runsBefore).filter((r) => r.startsWith('k:') && r.endsWith(' ok')).map((r) => r.replace(/@\d+ ok$/, ''));
    expect(after.filter((l) => l !== 'k:a')).toEqual(['k:b', 'k:c']); // fails on 7caca14: ['k:c', 'k:b']
  }, 60_000);
});
