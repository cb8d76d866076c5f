import type { MemoryBroker } from '../../src/simulate/memory-broker';
import { consumer, T0, world } from './park-by-key-world';

/**
 * DEFECT (attack7): after the main topic is deleted and created again, a retry of the old
 * log that fails once more under the new state is lost: its copy in the next tier is
 * committed unrun as a stale copy, and never reaches the DLQ.
 *
 * Scenario: k:a (old log offset 3) fails into the 1m tier. The main topic is recreated
 * (the group's commits go, the tiers stay); the new log has one record (position 1). The
 * 1m copy, stamped before `since`, runs as it should (unjudged, its key free) and fails
 * again into the 10m tier. It takes no hold: its original offset (3) is not below the new
 * state's position (1). Its 10m copy is stamped after `since`, so it is judged by the hold
 * as ever: key not held, so a "stale copy", committed without running.
 *
 * Code: src/runtime/key-parking.ts, onTierRecord, the `!current` branch after `handle()`
 * (`original < state.position && mayHold(...)`: no hold for an offset of another log), and
 * `unjudged()` / `failedBeforeState()` in src/runtime/park-state.ts, which tell a gone
 * log's retry only by its timestamp, which the next hop no longer carries (each tier copy is
 * stamped with the moment it failed: src/runtime/destination-record.ts).
 *
 * Class: an identity (main offset) read across logs; a property of the record ("from a gone
 * state") not carried along the ladder.
 *
 * Fix I'd make: carry the origin state on the record, e.g. keep the first-failure moment
 * (`x-first-failed-at`, already on every hop) and judge `failedBeforeState` by it instead of
 * the hop's own timestamp; or stamp tier copies with the state's `since` (a header) and take
 * a copy of another state as unjudged on every hop.
 */
type Internals = { logs: Map<string, unknown[][]>; committed: Map<string, Map<string, unknown>> };
function recreate(broker: MemoryBroker, topic: string, group: string): void {
  const b = broker as unknown as Internals;
  b.logs.set(topic, b.logs.get(topic)!.map(() => []));
  for (const key of [...(b.committed.get(group)?.keys() ?? [])]) if (key.startsWith(`${topic}\u0000`)) b.committed.get(group)!.delete(key);
  broker.rebalance(group);
}

describe('attack7: the main topic recreated, then a retry of its old log fails again', () => {
  it.failing('takes the old log\'s retry on up the ladder to the DLQ instead of skipping its next copy as stale', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    for (const v of ['0', '1', '2']) w.produce('other', v);
    w.produce('k', 'a'); // offset 3 of the old log
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    w.clock.setTimer(10_000, () => undefined); // ten seconds on: a topic is not recreated in the millisecond a record failed
    await w.broker.run({ until: T0 + 10_000 }); // k:a waits in the 1m tier
    expect(w.handled).toEqual(['other:0', 'other:1', 'other:2', 'k:a FAIL']);

    recreate(w.broker, consumer.mainTopic, consumer.groups.main);
    w.produce('n', 'new-0'); // the new log: position 1 once it ran
    await w.broker.run({ until: T0 + 3 * 3_600_000 }); // past 1m + 10m + 1h
    await retrying.stop();

    // The 1m copy ran (unjudged): so far as designed.
    expect(w.handled.filter((h) => h === 'k:a FAIL').length).toBeGreaterThanOrEqual(2);
    // Seen: one stale-tier-record event for the 10m copy, k:a FAIL only twice, the DLQ empty.
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.key?.toString())).toEqual(['k']);
  });
});
