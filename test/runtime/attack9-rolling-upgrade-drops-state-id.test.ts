import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (attack9); fixed (s28, see the commit that turned this into an ordinary test). A rolling upgrade (or a rollback and forward again) where the
 * previous release and this one alternate in one group leaves main partition p without a
 * state id for good under this release; a later recreation of the main topic then skips an
 * old-log retry written by THIS release as a stale copy: lost (never handled again, not in the
 * DLQ). This is attack 8's "a partition lost once never has an id again", reopened through the
 * legacy format path.
 *
 * Scenario: this release runs p (state born with an id, `krt-parked/2 ... !id ... .`). During
 * the rollout a member of the previous release (8a8310c) takes p: it reads `/2` as lost (as
 * docs say), and commits what that release writes for an empty lost state: `krt-parked/1 +0
 * ~0` with no id (its readParkState gives a lost state no id). A member of this release takes
 * p again: `/1` is "read as written", so the state has no id, and nothing ever gives it one
 * (ids come only at a birth or a loss). k:a fails for good on this release: its 1m copy
 * carries no x-park-state. Ten seconds on the main topic is deleted and created again
 * (Terraform replacement); the new log's state is born with an id. k:a's 1m copy comes due.
 *
 * Seen: k:a's copy carries no id, so the new state judges it by its own (empty) holds:
 * stale-tier-record, k:a ran once, the DLQ has nothing of it.
 *
 * Code: src/runtime/park-state.ts parseParkState (a LEGACY_PARK_STATE_FORMAT state without
 * `!id` keeps none) and src/runtime/key-parking.ts load() (an id is taken only when
 * `offset === undefined || lost`); copies then carry `idForCopies(state)` = undefined, and
 * onTierRecord's `writtenUnderAnotherState` is false for them under the recreated log's state.
 * The same holds for every group whose state was written before ids existed: this release's
 * own retries never get the recreated-topic protection there.
 *
 * Class: a protection switched off for good by reading an older format that cannot carry it;
 * the upgrade path of a new field only covers states born or lost under the new release.
 *
 * Fix I'd make: give a state without an id a new one at load (any readable state, legacy or
 * not, whenever it fits the budget), committed before its first record, as a birth is:
 * copies written before carry none and are judged as before, so adopting an id is safe, and
 * from then on this release's copies carry it.
 */
describe('a rolling upgrade where the previous release takes p between two runs of this one', () => {
  it('keeps a state id on p, so an old-log retry is not skipped as stale when the main topic is recreated', async () => {
    const w = world();
    w.produce('other', '0');
    let retrying = await w.start();
    await w.broker.run({ until: T0 });
    expect(w.parkState().id).toBeDefined(); // born with an id under this release
    await retrying.stop();

    // A member of the previous release takes p: `/2` reads as lost there, and it commits its
    // own format for an empty lost state at the committed offset (no id).
    const offset = w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)!;
    w.broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: String(offset), metadata: 'krt-parked/1 +0 ~0\0' }]);
    expect(w.parkState()).toMatchObject({ position: 1n, lostBefore: 1n }); // read as written by this release

    retrying = await w.start(); // this release again
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // offset 1 of the old log
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    w.clock.setTimer(10_000, () => undefined); // a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000, stopWhen: () => w.clock.now() >= T0 + 10_000 });
    expect(w.handled).toEqual(['other:0', 'k:a FAIL']);

    w.broker.recreateTopic(consumer.mainTopic);
    w.produce('n', 'new-0');
    await w.broker.run({ until: T0 + 3 * 3_600_000 }); // past 1m + 10m + 1h
    await retrying.stop();

    // Seen: k:a's 1m copy has no x-park-state, a stale-tier-record event for it, the DLQ empty.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.key?.toString())).toEqual(['k']);
    expect(w.broker.records(tier1m!.topic, 0)[0]!.headers?.[PARK_STATE_HEADER]).toBeDefined();
  });
});
