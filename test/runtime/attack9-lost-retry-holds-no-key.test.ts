import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (attack9); fixed (s28): the tiers' commits of p keep p's state id (tier-commit-state-id.ts), and a state lost by an offset reset of the main topic takes it back, so this log's copies stay its own to judge. Was: Since a lost state takes a new id (8264302), a retry in flight
 * when p's state was lost is "foreign" (it carries the lost state's id), and a foreign record
 * "releases no hold and takes none": when it fails on into a later tier, its key is left free,
 * and the key's newer records (produced after the loss) run before it. docs/runtime.md, "When
 * p's state is lost", still promises for exactly this record (a tier record from below L whose
 * key is not held): "if it fails into a later tier it holds its key there, so its key's newer
 * records wait for it again". Before 8264302 it did (unproven: original < lostBefore, then
 * `hold()`).
 *
 * Scenario: k:a fails into the 1m tier (k held at 0, its copy carries the state's id A);
 * other:x runs. The consumer stops; the group's offsets are reset to the current ones (empty
 * metadata: the state is lost at L = 2). It starts again (a new state, id B). k:a's 1m copy
 * comes due, runs (k is free) and fails again: into the 10m tier. Then k:b is produced
 * (after the loss, while k:a is still in retry).
 *
 * Seen: k:b runs at once (k not held: the lost retry took no hold when it failed on), and
 * k:a succeeds 10 minutes later: k's history is ['k:a FAIL', 'k:a FAIL', 'k:b', 'k:a'],
 * k:a's update lands after k:b's. The state after k:a's second failure holds nothing.
 *
 * Regression: this test's body passes on the tree at 2d68d4f (checked: git archive 2d68d4f).
 *
 * Code: src/runtime/key-parking.ts onTierRecord: `foreign` (writtenUnderAnotherState: the
 * copy's id A, the state's B) skips the judging, and after the run `ran.outcome === 'tier' &&
 * !foreign && ...` never takes the hold; drain() has the same `!foreign` for a waiting turn.
 * readParkState's lost branch gives the new id.
 *
 * Class: two meanings folded into one flag: "another log's record, whose offsets mean nothing
 * here" (must take no hold) and "this log's retry whose state was lost" (must hold its key
 * when it fails on, as an unproven one did); the id cannot tell them apart after a loss.
 *
 * Fix I'd make: a copy that carries another id AND whose original offset is below the state's
 * lostBefore mark (this log's, from before the loss; an old log's after a recreation meets a
 * state begun from nothing, without a mark) is treated as unproven, as before 8264302: run
 * unjudged, and hold its key at its original offset when it fails on (its copy then carrying
 * this state's id). Or keep the id across a loss (see attack9-foreign-stale-copy-after-newer).
 */
describe('a retry in flight when p\'s state was lost, failing again into a later tier', () => {
  it('holds its key there, so the key\'s newer records wait for it (as docs promise)', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // 0
    w.produce('other', 'x'); // 1
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('other:x') });
    await retrying.stop();
    expect(w.handled).toEqual(['k:a FAIL', 'other:x']);
    expect(w.parkState().held.size).toBe(1); // k held by its retry in the 1m tier

    w.loseState('empty'); // kafka-consumer-groups --reset-offsets --to-current
    w.failOnce.add('k:a'); // the downstream is still down when the retry comes due
    retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    expect(w.broker.records(tier1m!.topic, 0).length).toBe(1);
    w.produce('k', 'b'); // after the loss, while k:a waits in the 10m tier
    await w.broker.run({ until: T0 + 30 * 60_000 });
    await retrying.stop();

    const k = w.handled.filter((h) => h.startsWith('k:'));
    // Seen: ['k:a FAIL', 'k:a FAIL', 'k:b', 'k:a']: k:b ran while k:a was still in retry.
    expect(k).toEqual(['k:a FAIL', 'k:a FAIL', 'k:a', 'k:b']);
    expect(w.broker.records(consumer.dlqTopic, 0)).toEqual([]);
  });
});
