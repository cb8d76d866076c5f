import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack8); fixed (s28): a lost state takes a new id, committed with its mark before its first record, so the lost state's copies and an old log's are another state's and run unjudged. Was: once a state begun from nothing is lost, the tier records written under
 * ANOTHER state (a recreated main topic's old log) are judged by the lost state's (empty)
 * holds again: an old-log retry whose original offset is at or past the loss's offset is
 * committed unrun as a stale copy. Lost: never handled again, not in the DLQ. docs/runtime.md
 * ("When p's state is lost") promises "no record is lost" for a lost state.
 *
 * Scenario: k:a (old log, offset 3) fails into the 1m tier; its copy carries the old state's
 * id. Ten seconds on the main topic is recreated; the new log's n:new-0 runs (the new state
 * is born with another id, position 1). The consumer stops, the group's commit of p loses
 * its metadata (kafka-consumer-groups --reset-offsets --to-current commits it empty, or a
 * reader gets trailing bytes), and the consumer starts again. k:a's 1m copy comes due.
 *
 * Seen: a stale-tier-record event for it, k:a never runs again.
 *
 * Code: src/runtime/park-state.ts `readParkState` (a lost state keeps no id) and
 * `writtenUnderAnotherState` (false whenever the state has no id); then
 * src/runtime/key-parking.ts onTierRecord: `!foreign && !unjudged(...)` with the copy's
 * original offset (3) >= `lostBefore` (1), so `unproven()` is false and the empty hold
 * judges it a stale copy. The docs' argument for judging a copy from L on ("its main record
 * is read again after the loss") holds only for copies of this log, which the header of this
 * copy says it is not.
 *
 * Class: evidence carried on the record (the id of the state that wrote it) ignored by the
 * state that lost its own id; a fallback ("judged as before ids") that reopens attack7's loss.
 *
 * Fix I'd make: a state that cannot compare ids (lost, or its id dropped) must not judge a
 * record that carries one it cannot vouch for: run such a record unjudged (as a record from
 * before the loss), e.g. `unjudged()` true when the state has no id and the record carries
 * one; or keep the id of a state across a loss (write it again with the `~` mark) when the
 * loss is of metadata only.
 */

describe('a state begun from nothing after the main topic was recreated, then lost', () => {
  it('still runs the old log\'s retry when it comes due instead of skipping it as stale', async () => {
    const w = world();
    w.failOnce.add('k:a');
    for (const v of ['0', '1', '2']) w.produce('other', v);
    w.produce('k', 'a'); // offset 3 of the old log
    let retrying = await w.start();
    await w.broker.run({ until: T0 });
    w.clock.setTimer(10_000, () => undefined); // ten seconds on: a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000 });
    expect(w.handled).toEqual(['other:0', 'other:1', 'other:2', 'k:a FAIL']);
    const oldId = w.broker.records(tier1m!.topic, 0)[0]!.headers?.[PARK_STATE_HEADER]?.toString();
    expect(oldId).toMatch(/^[A-Za-z0-9_-]{8}$/); // the copy says which state wrote it

    w.broker.recreateTopic(consumer.mainTopic);
    w.produce('n', 'new-0'); // the new log: position 1 once it ran
    w.clock.setTimer(10_000, () => undefined);
    await w.broker.run({ until: T0 + 20_000 });
    expect(w.handled).toContain('n:new-0');
    expect(w.parkState().id).toBeDefined();
    expect(w.parkState().id).not.toBe(oldId); // a new state, another id
    await retrying.stop();

    w.loseState('empty'); // offset 1 kept, its state gone
    retrying = await w.start();
    await w.broker.run({ until: T0 + 3 * 3_600_000 }); // past the 1m copy's due time
    await retrying.stop();

    // Seen: one stale-tier-record event (k:a's 1m copy), k:a never ran again.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.handled.filter((h) => h.startsWith('k:a'))).toEqual(['k:a FAIL', 'k:a']);
  });
});
