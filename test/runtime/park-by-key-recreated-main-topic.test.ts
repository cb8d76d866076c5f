import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by attack (s26, attack4: a new log on the main topic with park-by-key), fixed; was:
 * a partition the group had no commit of loaded as an empty state, "nothing in retry", so a
 * tier record of the main topic's old log whose key that state did not hold was committed
 * unrun as a stale copy (the record lost). The main topic of a park-by-key consumer is
 * deleted and created again while a failed record's copy waits in its tier (the tiers are
 * not recreated); the group's commits of the main topic go with the old log.
 * Class: "no commit" read as "nothing in retry" although tier records written by an earlier
 * state exist. Fix: a state that begins from nothing takes an id, committed before its first
 * record, and the copies written under it carry it (PARK_STATE_HEADER); a tier record that
 * carries another id is never judged by this state's holds (docs/runtime.md, "When p begins
 * from nothing").
 */
describe('park-by-key: the main topic recreated while a retry waits in its tier', () => {
  it('runs the retry of the old log that waits in the tier instead of committing it as a stale copy', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('other', 'x');
    const retrying = await w.start();
    await w.broker.run({ until: T0 }); // k:a waits a minute in the first tier, k held
    expect(w.handled).toEqual(['k:a FAIL', 'other:x']);
    // Ten seconds on (a topic is not deleted and created again in the millisecond a record failed).
    w.clock.setTimer(10_000, () => undefined);
    await w.broker.run({ until: T0 + 10_000 });
    expect(w.handled).toEqual(['k:a FAIL', 'other:x']);

    w.broker.recreateTopic(consumer.mainTopic);
    w.produce('n', 'new-0'); // the new log's first record
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await retrying.stop();

    expect(w.handled).toContain('n:new-0');
    // Seen: ['k:a FAIL', 'other:x', 'n:new-0'] and one stale-tier-record event for k:a: its retry committed unrun.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.handled).toContain('k:a');
  });
});
