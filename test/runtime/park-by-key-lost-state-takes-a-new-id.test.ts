import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack8); fixed (s28): a lost state takes a new id, committed with its mark before its first record, so the lost state's copies and an old log's are another state's and run unjudged. Was: a partition whose state was lost once never has a state id again, so its
 * copies carry none; when its main topic is recreated later, the new state judges the old
 * log's retries by its own holds (a copy without an id is "judged as before ids") and skips
 * them as stale copies: lost. The loss that disabled the id was long over, nothing was lost
 * then, and the recreation is the very case ids were made for (attack7's climbs-the-ladder).
 *
 * Scenario: a new group runs other:0 (the state is born with an id). The consumer stops, the
 * commit of p loses its metadata (`kafka-consumer-groups --reset-offsets --to-current`, which
 * commits empty metadata), the consumer starts again (park-state-lost: an empty state,
 * lostBefore 1, no id) and goes on: other:1 runs. Then k:a (offset 2) fails, for good: its 1m
 * copy carries no id. Ten seconds on the main topic is deleted and created again: the new
 * state is born with an id; the new log's n:new-0 runs. k:a's 1m copy comes due.
 *
 * Seen: k:a's copy has no x-park-state; it is judged by the new state's holds (original
 * offset 2, key not held): stale-tier-record, k:a FAIL once, the DLQ empty.
 *
 * Code: src/runtime/park-state.ts `readParkState`, the lost branch
 * (`{ ...emptyParkState(committed), lostBefore }`, no id, and `parseParkState` keeps none
 * afterwards, as only a birth makes one); src/runtime/key-parking.ts `onMainRecord`
 * (`options.handle(record, false, state.id)`: no header on the copy), then `onTierRecord`
 * (`writtenUnderAnotherState` false for a copy without an id).
 *
 * Class: a protection switched off for good by an unrelated, recovered incident; an
 * absent marker read as "this state's" rather than "unknown".
 *
 * Fix I'd make: a lost state begins a new id as a state from nothing does (committed with
 * the `~` mark); copies written under the lost one are then foreign or carry no id, and
 * both are taken as unproven (run if their key is free, else their turn) rather than
 * judged, as the copies from below the loss already are.
 */

describe('a partition whose state was lost once, later its main topic recreated while a retry waits', () => {
  it('takes the old log\'s retry up the ladder to the DLQ instead of skipping it as stale', async () => {
    const w = world();
    w.produce('other', '0');
    let retrying = await w.start();
    await w.broker.run({ until: T0 });
    expect(w.parkState().id).toBeDefined(); // born with an id
    await retrying.stop();

    w.loseState('empty'); // an operator's reset to the current offsets
    retrying = await w.start();
    w.produce('other', '1');
    await w.broker.run({ until: T0 });
    expect(w.events.filter((e) => e.type === 'park-state-lost').length).toBeGreaterThan(0);
    expect(w.parkState().position).toBe(2n); // the loss is over: other:1 committed with the state

    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // offset 2 of the old log
    await w.broker.run({ until: T0 });
    w.clock.setTimer(10_000, () => undefined); // a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000 });
    expect(w.handled).toEqual(['other:0', 'other:1', 'k:a FAIL']);

    w.broker.recreateTopic(consumer.mainTopic);
    w.produce('n', 'new-0'); // the new log: position 1 once it ran
    await w.broker.run({ until: T0 + 3 * 3_600_000 }); // past 1m + 10m + 1h
    await retrying.stop();
    expect(w.parkState().id).toBeDefined(); // the new state has an id

    // Seen: a stale-tier-record event for k:a's 1m copy (which carries no id), k:a FAIL once, the DLQ empty.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.key?.toString())).toEqual(['k']);
    expect(w.broker.records(tier1m!.topic, 0)[0]!.headers?.[PARK_STATE_HEADER]).toBeDefined();
  });
});
