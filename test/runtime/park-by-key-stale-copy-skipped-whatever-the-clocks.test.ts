import { startSkewed } from './skewed-member';
import { T0, consumer, refuseOnce, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack7), fixed (a state id on the state and its copies: PARK_STATE_HEADER); was: with no state lost, a stale tier copy runs over a newer record of its
 * key, because the member that wrote it has a clock behind the member that began p's state:
 * its stamp is before `since`, so it is taken for a retry of a gone state (unjudged) instead
 * of being skipped as stale.
 *
 * Scenario: a new group. Member A, its clock 60 s ahead, takes p first: p's state begins
 * from nothing at `since` = T0 + 60 s (committed, `!t`). Member B, its clock right, owns p
 * next. k:a fails on B (its 1m copy stamped T0) and the commit of that is refused (the
 * coordinator unavailable, once): k:a is read again and succeeds, so k is not held and k:b
 * runs. k:a's first copy comes due: a stale copy (its record is done, a newer one ran), but
 * stamped T0 < `since`, so it runs: k:a's update lands after k:b's. No state was lost: the
 * group's commits are all there and read back exactly.
 *
 * Code: src/runtime/park-state.ts `failedBeforeState` (`failedAt < state.since`, another
 * member's clock), reached from `unjudged()` in src/runtime/key-parking.ts onTierRecord; the
 * stamp is the publishing member's clock (src/runtime/destination-record.ts). The mark never
 * goes once set, so every state of a new group carries it.
 *
 * Class: ordering by wall clocks across machines; "no allowance for clocks" (the comment in
 * park-state.ts) in the direction that runs stale copies.
 *
 * Fix I'd make: judge "written under a gone state" by an id the state writes (a header on
 * every tier copy naming the state it was written under, compared with the id kept beside
 * `!t`), not by comparing clocks; copies carrying this state's id are judged by the hold.
 */
describe('a stale tier copy written by a member whose clock is behind the one that began p\'s state', () => {
  it('is skipped as stale, not run after a newer record of its key', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs'; // a refused commit: the record is delivered again
    w.produce('w', '0');
    const ahead = await startSkewed(w, 60_000); // member A begins p's state at T0 + 60 s
    await w.broker.run({ until: T0 });
    const began = w.parkState().id;
    expect(began).toMatch(/^[A-Za-z0-9_-]{8}$/);
    await ahead.stop();

    const right = await startSkewed(w, 0); // member B, its clock right, owns p now
    w.failOnce.add('k:a');
    refuseOnce(w.broker, (o) => o.topic === consumer.mainTopic && (o.metadata ?? '').includes('@')); // the commit of k's hold
    w.produce('k', 'a');
    w.produce('k', 'b');
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await right.stop();

    expect(w.parkState().id).toBe(began); // the state was never lost
    const k = w.handled.filter((h) => h.startsWith('k:'));
    // Seen: ['k:a FAIL', 'k:a', 'k:b', 'k:a']: k:a's stale 1m copy ran after k:b.
    expect(k[k.length - 1]).toBe('k:b');
  });
});
