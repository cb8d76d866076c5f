import { startSkewed } from './skewed-member';
import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack7), fixed (a state id on the state and its copies: PARK_STATE_HEADER); was: a retry of the main topic's old log is lost after the topic is
 * recreated when the member that published it had a clock ahead of the member that begins
 * the new state: its stamp is not before `since`, so it is judged by the (empty) hold and
 * committed unrun as a stale copy. Never handled, not in the DLQ.
 *
 * Scenario: member A, its clock 30 s ahead, fails k:a into the 1m tier (stamped T0 + 30 s).
 * Ten seconds later the main topic is deleted and created again (the group's commits go, the
 * tiers stay) and member B, its clock right, owns p: its state begins from nothing at
 * `since` = T0 + 10 s. k:a's copy comes due on B: key not held, stamp T0 + 30 s is not before
 * `since`, so `stale-tier-record`.
 *
 * Code: src/runtime/park-state.ts `failedBeforeState` (`failedAt < state.since`: one
 * member's clock against another's, "no allowance for clocks"), used by `unjudged()` in
 * src/runtime/key-parking.ts; the stamp is set in src/runtime/destination-record.ts
 * (`dueAt - delayMs`, the publishing member's clock).
 *
 * Class: ordering events across machines by wall clocks; a correctness decision (run or
 * drop) resting on clock agreement.
 *
 * Fix I'd make: tell a gone state's copies by something the state wrote, not by time: the
 * state draws an id when it begins from nothing (kept in its metadata beside `!t`), and every
 * tier copy carries the id of the state it was written under (a header); a copy with
 * another id, or none, is unjudged (runs if its key is free, else waits its turn). Failing
 * that, an allowance: judge only copies stamped after `since` + the largest skew tolerated.
 */

describe('the main topic recreated, the old log\'s retry published by a member whose clock ran ahead', () => {
  it('runs the old log\'s retry on the member that owns p now, whose clock is right', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    const ahead = await startSkewed(w, 30_000); // member A: its clock 30 s ahead
    await w.broker.run({ until: T0 });
    expect(w.handled).toEqual(['k:a FAIL']); // k:a's copy in the 1m tier, stamped T0 + 30 s
    await ahead.stop();

    w.clock.setTimer(10_000, () => undefined);
    await w.broker.run({ until: T0 + 10_000 });
    w.broker.recreateTopic(consumer.mainTopic);
    const right = await startSkewed(w, 0); // member B owns p now; its state begins at T0 + 10 s
    w.produce('n', 'new-0');
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await right.stop();

    expect(w.handled).toContain('n:new-0');
    // Seen: ['k:a FAIL', 'n:new-0'] and a stale-tier-record event for k:a's copy.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.handled).toContain('k:a');
  });
});
