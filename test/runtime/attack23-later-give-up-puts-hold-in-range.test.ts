import { attackWorld, consumer } from './attack21-world';

/**
 * Fixed: a give-up has a mark of its own (ParkState.givenUpBefore), below which no hold judges.
 * Attack 23, finding: LOST. A give-up of another key's record moves the shed mark over a hold
 * taken after an earlier give-up; that hold then passes for one "a shed kept" and judges the
 * copy of its key's given-up record stale.
 *
 * Scenario (Confluent; two restarts while retention runs): k's a (0) holds k for ~71 min; j's
 * b (1) holds j (its 10m copy succeeds); j's c (2), d (3) and k's e (4) park. b's 10m copy
 * succeeds, the release drains c, which fails: c's 1m copy is written and the process dies as it
 * commits (stored: k@0, j@1, 2 3 4 parked). Retention deletes 0..2; restart 1 at once: the load
 * gives c up (j marked, mark 3), b's copy runs again and releases j (mark dropped with the
 * hold), d is read again and fails: j held at 3 (not in the mark's range: 3 is not below 3).
 * The process dies again before c's copy is due; retention deletes 3..4; restart 2 gives e up
 * (k's, parked): the mark moves to 5, and j's hold at 3 is now "in the shed's range", unmarked.
 *
 * Seen: c's 1m copy (original 2, this state's id) is judged by j's hold at 3 (keptHoldJudges:
 * in shed range, original <= hold), not j's current retry: `stale-tier-record` c. c's record is
 * deleted, it ran once and failed: c never succeeds.
 *
 * Code at fault: key-parking.ts markGivenUp moves `shedBefore` past existing holds of other
 * keys (here j's at 3, taken after the earlier give-up), breaking ParkState.shedBefore's
 * invariant "no record below it takes a hold: a hold there must be one the shed kept"; and
 * unproven() lets a hold in that range judge every copy at or below it, while the given-up
 * record's copy is older than the hold (the `*` mark only covers newer ones, and went with
 * j's earlier hold).
 *
 * Class: LOST (the only carrier of a deleted record skipped as stale).
 *
 * Fix I'd make: keep the given-up offsets (or per key the given-up range) in the state and
 * treat a copy of one as unproven whatever its key's hold; at least, a give-up must not turn
 * holds taken since the previous mark into "kept" holds: mark them too (or keep a separate
 * `givenUpBefore` mark the kept-hold exemption never applies to).
 */
describe('attack 23: a later give-up puts a hold taken since the earlier one in the shed range', () => {
  it('runs c (given up, its copy its only carrier)', async () => {
    const w = attackWorld({ reaction: 'confluent' });
    const [tier1m] = consumer.tiers;
    w.fails.set('k:a', 3); // k held at 0 for ~71 min
    w.fails.set('j:b', 2); // j held at 1; its 10m copy succeeds
    w.fails.set('j:c', 1); // c's drained run fails; its 1m copy would succeed
    w.fails.set('j:d', 3); // d holds j for a long time
    w.produce('k', 'a'); // 0
    w.produce('j', 'b'); // 1
    w.produce('j', 'c'); // 2
    w.produce('j', 'd'); // 3
    w.produce('k', 'e'); // 4
    w.produce('x', 'f'); // 5
    w.crashAt((offsets) => w.runs.includes('j:c@0 FAIL') && offsets.some((o) => w.isStateCommit(o)));
    await w.start();
    await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
    expect(w.faulty.crashes).toBe(1);
    const stored = w.parkState();
    expect([...stored.parked.keys()].sort()).toEqual([2n, 3n, 4n]);
    expect(w.broker.records(tier1m!.topic, 0).map((r) => r.value?.toString())).toContain('c');

    // Restart 1 at once (c's copy is due in a minute): retention took 0..2, c is given up under j's hold (marked).
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 3);
    await w.start();
    await w.runFor(20_000, () => w.parkState().held.size === 2 && [...w.parkState().held.values()].includes(3n));
    expect(w.parkState().givenUpBefore).toBe(3n);
    expect([...w.parkState().held.values()].sort()).toEqual([0n, 3n]);

    // Restart 2, still before c's copy is due: retention took 3..4; e (k's, parked) is given up: the mark moves past j's hold at 3.
    w.faulty.crash();
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 5);
    await w.start();
    await w.runFor(3 * 3_600_000);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['2'], ['4']]);
    expect(w.parkState().givenUpBefore).toBe(5n); // the later give-up moved the mark past e
    expect(w.runs).toContain('j:c@0 FAIL'); // c ran once, its copy is its only carrier
    expect(w.ofType('stale-tier-record').map((e) => e.record.message.value?.toString())).not.toContain('c'); // fails on 7caca14
    expect(w.succeeded()).toContain('j:c'); // fails on 7caca14: c is lost
  }, 60_000);
});
