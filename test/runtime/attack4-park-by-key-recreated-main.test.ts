import type { MemoryBroker } from '../../src/simulate/memory-broker';
import { consumer, T0, world } from './park-by-key-world';

/**
 * DEFECT (attack4, target 1: a new log on the tier topics with park-by-key).
 * src/runtime/park-state.ts:123 `readParkState(undefined, …)` returns an empty state with no
 * `lostBefore`; src/runtime/key-parking.ts:459-466 then judges every tier record whose key that
 * state does not hold a "stale copy" and commits it without running it.
 * Scenario: the main topic of a park-by-key consumer is deleted and created again while a
 * failed record's copy waits in its retry tier (the tiers are not recreated). The group's
 * commits of the main topic go with the old log, so after the rebalance the partition's state
 * loads as "nothing committed": empty, not lost. The tier copy comes due, its key is not held,
 * and it is committed unrun (a stale-tier-record event). Its main record went with the old log:
 * the record is lost (the unordered path runs it: 42588cc and FinishedOffsets).
 * Class: "nothing committed" is read as "nothing in retry" although tier records written by
 * an earlier state exist; a missing state is a lost state whenever tier records older than it
 * are read. Fix I would make: when the load finds no commit, mark the state lost for every tier
 * record already in the tier partitions (e.g. `lostBefore` = the old log's end is unknowable, so
 * keep a per-tier-partition bound: tier records below the tier partition's committed/position
 * offset at load time are unproven and run, taking their key's turn), instead of an empty state.
 */
type Internals = { logs: Map<string, unknown[][]>; committed: Map<string, Map<string, unknown>> };
function recreate(broker: MemoryBroker, topic: string, group: string): void {
  const b = broker as unknown as Internals;
  b.logs.set(topic, b.logs.get(topic)!.map(() => []));
  for (const key of [...(b.committed.get(group)?.keys() ?? [])]) if (key.startsWith(`${topic}\u0000`)) b.committed.get(group)!.delete(key);
  broker.rebalance(group);
}

describe('park-by-key: the main topic recreated while a retry waits in its tier', () => {
  it.failing('runs the retry of the old log that waits in the tier instead of committing it as a stale copy', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('other', 'x');
    const retrying = await w.start();
    await w.broker.run({ until: T0 }); // k:a waits a minute in the first tier, k held
    expect(w.handled).toEqual(['k:a FAIL', 'other:x']);

    recreate(w.broker, consumer.mainTopic, consumer.groups.main);
    w.produce('n', 'new-0'); // the new log's first record
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await retrying.stop();

    expect(w.handled).toContain('n:new-0');
    // Seen: ['k:a FAIL', 'other:x', 'n:new-0'] and one stale-tier-record event for k:a: its retry committed unrun.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.handled).toContain('k:a');
  });
});
