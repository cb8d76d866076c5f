import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import { emptyParkState, keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by attack 11. The lost mark a shed sets for the holds it gives up is one mark for the
 * whole partition: it also covers the keys whose holds the shed kept, so their stale copies
 * run, after their newer retries, though the runtime says it gave up only the other keys' order.
 *
 * Scenario (kafkajs): main partition 0's stored state is at position 30, j held at 10 and k
 * held at 20 (48 bytes). The broker's `offset.metadata.max.bytes` comes down to 40: the commit
 * of x@30 is refused, and read again the state is shed to j's hold, k's given up
 * (`park-state-shed`, holdsDropped 1): `lostBefore` moves to 21. Then a stale copy of j's
 * earlier retry (j@5, whose retry ended before j@10 took the hold: its tier record was
 * published twice, as after a refused commit) comes due, then j@10's retry, which succeeds.
 *
 * Seen: the stale copy of j@5 is no longer skipped: judged "from before a lost state" (5 < 21)
 * it waits its turn behind j's hold, and runs once j@10's retry has: j@5's old update applied
 * over j@10's. The runtime said it gave up k's order only (holdsDropped counts k); the fault
 * world cannot see this, as it counts every key of the stored state as lost.
 *
 * Not only kept holds: any key's stale copy from below the mark runs. A stricter copy of the
 * lowered-limit property (on the attack11 branch only, seed 10) found it so: A@0's retry
 * succeeded and released A (main state committed), but its tier commit, carrying
 * `krt-park-id/1 !id +3 .` (29 bytes), was refused at a 24-byte limit; the state was shed (G's
 * hold given up, the mark to 3), and A@0's copy, delivered again, ran once more after A@2.
 * (The same mark set by a skipped hold: attack11-hold-skipped-mark-unjudges-other-keys.)
 *
 * At fault: shed-park-state.ts, `state.lostBefore = offset + 1n` for a dropped hold, read by
 * key-parking.ts unproven() for every key: below the mark, no hold judges a copy. Before the
 * shed, a mark never covered a kept hold (a lost state keeps none; mayHold sets it only on an
 * empty state). Class: a partition-wide marker used for a per-key decision.
 *
 * Fixed: a shed marks the holds it gives up with a mark of its own (`shedBefore`, `^` in the
 * metadata), kept apart from a lost state's; below it a hold the shed kept judges its key's
 * copies as before (key-parking.ts unproven), and no record there takes a hold again
 * (holdOffsetOf), so a hold there is always one the shed kept. Left as it is (docs/runtime.md,
 * the shed): a stale copy of a kept key arriving after its hold's release still runs, as
 * nothing in the state then says the key was kept.
 */
describe('a stored state shed under a lowered metadata limit, keeping one key\'s hold and giving up another\'s', () => {
  const tier = 'orders.retry.10m';
  const j = Buffer.from('j');
  const k = Buffer.from('k');

  function setup() {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.throwReaction = 'kafkajs';
    broker.createTopic('orders', 1);
    broker.createTopic(tier, 1);
    const stored = emptyParkState(30n);
    stored.held.set(keyHash(j), 10n);
    stored.held.set(keyHash(k), 20n);
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: '30', metadata: parkStateMetadata(stored) }]);
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    const consumer = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [tier],
      consumer: () => consumer,
      handle: async (r) => (handled.push(`${r.message.key}@${r.message.offset}`), 'success'),
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    return { broker, parking, handled, events };
  }
  const main = (key: Buffer, offset: number): ConsumedRecord => ({ topic: 'orders', partition: 0, message: { key, value: Buffer.from('v'), offset: String(offset), timestamp: '0' } });
  const copyOf = (offset: number, original: number): ConsumedRecord => ({
    topic: tier,
    partition: 0,
    message: { key: j, value: Buffer.from('v'), offset: String(offset), timestamp: '0', headers: { [HEADERS.originalOffset]: String(original) } },
  });
  const ran = (handled: string[], label: string, offset: number) => async () => (handled.push(label), { outcome: 'success' as const, commit: { topic: tier, partition: 0, offset: String(offset + 1) } });

  it('skips the stale copy of j as stale while the stored state fits (the control)', async () => {
    const s = setup();
    await s.parking.onMainRecord(main(Buffer.from('x'), 30));
    await s.parking.onTierRecord(copyOf(0, 5), ran(s.handled, 'j@5 stale copy', 0));
    await s.parking.onTierRecord(copyOf(1, 10), ran(s.handled, 'j@10 retry', 1));
    expect(s.handled).toEqual(['x@30', 'j@10 retry']);
  });

  it('still skips a stale copy of the kept key j as stale, instead of running it after j\'s newer retry', async () => {
    const s = setup();
    s.broker.metadataMaxBytes = 40;
    await expect(s.parking.onMainRecord(main(Buffer.from('x'), 30))).rejects.toThrow(); // refused as too large
    await s.parking.onMainRecord(main(Buffer.from('x'), 30)); // delivered again: the stored state is shed
    const shed = s.events.find((e) => e.type === 'park-state-shed');
    expect(shed).toMatchObject({ holdsDropped: 1 }); // k's hold given up, j's kept

    await s.parking.onTierRecord(copyOf(0, 5), ran(s.handled, 'j@5 stale copy', 0));
    await s.parking.onTierRecord(copyOf(1, 10), ran(s.handled, 'j@10 retry', 1));

    expect(s.handled).toEqual(['x@30', 'j@10 retry']);
    expect(s.events.map((e) => e.type)).toContain('stale-tier-record');
  });
});
