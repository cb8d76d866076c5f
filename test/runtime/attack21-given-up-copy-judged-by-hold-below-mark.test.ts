import { attackWorld, consumer, crashAfterCopyOfParked } from './attack21-world';

/**
 * Attack 21 (retention deletes parked records), finding 1: LOST; fixed. The same class as
 * park-by-key-retention-copy-of-uncommitted-run (a copy of a parked record from a run whose
 * state was never committed): read before the give-up, such a copy now waits behind its record
 * (park-by-key-copy-of-parked-record-waits-behind-it); read after it, as here, the kept hold
 * below the mark judges only copies of its own record and older ones (key-parking.ts unproven).
 *
 * Scenario: key k's record a (offset 0) fails on the main topic and in the 1m tier (k held at
 * 0); k's record b (offset 1) parks behind it. a's 10m copy succeeds: the release drains b,
 * which fails, and its copy is written to the 1m tier; the process dies before the state that
 * says so (k held at 1, nothing parked) is committed. The committed state still has k held at
 * 0 and b parked. The consumer is down longer than the 1m tier's delay; retention deletes the
 * main records it read (offsets 0 and 1). The next process loads the state, reads the log
 * start (2) and gives b up (`parked-records-deleted`), moving the shed mark to 2. Both tier
 * copies are due; tier partitions are read side by side, and b's 1m copy comes before a's 10m
 * copy is read again.
 *
 * Seen: b's copy is skipped as a stale tier record, and b never runs again: it is lost.
 * (a's copy then runs again and releases k; nothing is left to carry b.)
 *
 * Code at fault: src/runtime/key-parking.ts giveUpDeleted moves `shedBefore` past the given-up
 * records so that "copies from below the mark run unjudged" (docs/runtime.md), but
 * `unproven()` exempts a key whose hold is in the shed's range (`inShedRange(state, hold)`: a
 * hold below the mark is taken for one a shed kept, which "judges its key as ever"). k's hold
 * (0) is below the mark, so b's copy is judged by it: not the current retry (original 1 ≠ 0),
 * hence stale. That exemption is right for a shed (the shed kept that hold and dropped none of
 * its key's records), wrong for a give-up, which drops a record of a key that is still held.
 * The docs' open gap is a copy read *before* the give-up; this one is read after it.
 *
 * Class: a mark reused with another meaning (shed vs. give-up): a key-level exemption of the
 * shed defeats the record-level purpose of the give-up's mark.
 *
 * Fix I'd make: keep the given-up offsets themselves (or a second mark, `givenUpBefore`, with
 * the oldest given-up record) in the state, and treat a copy whose original is a given-up
 * record as unproven whatever its key's hold (it runs unjudged in its turn, behind the hold,
 * as a replay does), instead of relying on the shed's mark and its kept-hold exemption.
 * Not `fault-world.ts`'s `ranUncommittedThenDeleted`: that exclusion hides exactly this from
 * the retention property (a record deleted while parked that ran at all is never counted lost).
 */
describe('attack 21: a given-up record whose copy is read while its key is still held below the shed mark', () => {
  it('runs the copy of the given-up record: it ran once in a crashed process, and the copy is its only carrier', async () => {
    const w = attackWorld({ reaction: 'confluent' });
    const [tier1m] = consumer.tiers;
    // The process dies as it commits the state after b's drained run (b's copy is in the 1m tier by then).
    await crashAfterCopyOfParked(w);
    expect(w.broker.records(tier1m!.topic, 0).map((r) => r.value?.toString())).toEqual(['a', 'b']);
    // What the broker kept: k held at 0, b parked (the run of b and its copy are not in it).
    const stored = w.parkState();
    expect([...stored.held.values()]).toEqual([0n]);
    expect([...stored.parked.keys()]).toEqual([1n]);

    // Down for a while (both tier copies come due); retention deletes the main records read.
    w.advanceBy(5 * 60_000);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, Number(stored.position));
    await w.start();
    await w.runFor(3 * 3_600_000);

    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    // b ran once (failed) before the crash; its copy is its only way to run again.
    expect(w.runs).toContain('k:b@0 FAIL');
    expect(w.succeeded()).toContain('k:b'); // fails now: b never ran again
    expect(w.ofType('stale-tier-record').map((e) => `${e.record.topic}@${e.record.message.offset}`)).toEqual([]); // b's copy, skipped as stale
  });
});
