import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import { emptyParkState, NO_STATE_ID, parkStateMetadata } from '../../src/runtime/park-state';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by attack 11 (a stricter copy of the lowered-limit property, on its branch only, seed 7: "D: record 0 last
 * ran after 2"). The lost mark a skipped hold sets (the broker keeps less than one hold) is one
 * mark for the partition: every key's stale copy from below it then runs, after that key's newer
 * records, though the runtime said it gave up only the skipped key's order
 * (`parking-hold-skipped` names one offset). The shed's mark does the same to kept holds
 * (attack11-shed-mark-unjudges-kept-holds).
 *
 * Scenario (as the property found it, kafkajs, the limit lowered to 24 bytes): D@0 failed into
 * the tiers; a refused commit made its 1m retry run twice, so two copies of it went to the 10m
 * tier. The first ran and succeeded, D was released, D@1 ran. Then A@2 fails into the 1m tier:
 * no hold fits, `parking-hold-skipped`, `lostBefore` moves to 3. The second 10m copy of D@0 comes.
 *
 * Seen: the stale copy of D@0 runs (judged "from before a lost state": 0 < 3), after D@1: D@0's
 * old update applied over D@1's. Without A's skipped hold it is skipped as stale.
 *
 * At fault: key-parking.ts mayHold() moves the partition-wide `lostBefore` for one key's hold,
 * and unproven() reads it for every key. Class: a partition-wide marker used for a per-key
 * decision (the lost-state path may, as it loses every key's hold; a skipped hold does not).
 *
 * Fixed: whether the record could take a hold is decided before it runs (the state's size does
 * not depend on the outcome, key-parking.ts holdFits); when it could not, its copy carries the
 * id of no state (NO_STATE_ID: every hop runs it unjudged), and no partition-wide mark moves.
 */
describe('a hold skipped under a tiny metadata limit, then another key\'s stale copy', () => {
  const tier = 'orders.retry.10m';

  function setup() {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.throwReaction = 'kafkajs';
    broker.createTopic('orders', 1);
    broker.createTopic(tier, 1);
    // D@0's retry ended and D@1 ran: nothing held, position 2.
    broker.commit('g', [{ topic: 'orders', partition: 0, offset: '2', metadata: parkStateMetadata(emptyParkState(2n)) }]);
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    const copyIds: (string | undefined)[] = [];
    const consumer = broker.port().consumer('g');
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [tier],
      consumer: () => consumer,
      handle: async (r, _parked, parkState) => (handled.push(`${r.message.key}@${r.message.offset}`), copyIds.push(parkState), 'tier'),
      emit: (e) => events.push(e),
      budgetBytes: 24, // under the empty state plus one hold (33 bytes)
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    return { broker, parking, handled, events, copyIds };
  }
  const main = (key: string, offset: number): ConsumedRecord => ({ topic: 'orders', partition: 0, message: { key: Buffer.from(key), value: Buffer.from('v'), offset: String(offset), timestamp: '0' } });
  const staleCopyOfD0: ConsumedRecord = { topic: tier, partition: 0, message: { key: Buffer.from('D'), value: Buffer.from('v'), offset: '1', timestamp: '0', headers: { [HEADERS.originalOffset]: '0' } } };
  const ran = (handled: string[]) => async () => (handled.push('D@0 stale copy'), { outcome: 'success' as const, commit: { topic: tier, partition: 0, offset: '2' } });

  it('skips the stale copy of D@0 while no hold was skipped (the control)', async () => {
    const s = setup();
    await s.parking.onTierRecord(staleCopyOfD0, ran(s.handled));
    expect(s.handled).toEqual([]);
    expect(s.events.map((e) => e.type)).toEqual(['stale-tier-record']);
  });

  it('still skips the stale copy of D@0 after A\'s hold was skipped (the runtime gave up A\'s order, not D\'s)', async () => {
    const s = setup();
    await s.parking.onMainRecord(main('A', 2)); // into a tier: no hold fits
    expect(s.events.map((e) => e.type)).toEqual(['parking-hold-skipped']);
    await s.parking.onTierRecord(staleCopyOfD0, ran(s.handled));
    expect(s.handled).toEqual(['A@2']);
  });

  it('publishes the copy of A@2, whose hold was skipped, under the id of no state, so every later hop runs it unjudged', async () => {
    const s = setup();
    await s.parking.onMainRecord(main('A', 2));
    expect(s.copyIds).toEqual([NO_STATE_ID]);
  });
});
