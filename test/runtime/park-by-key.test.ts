import { keyHash } from '../../src/runtime/park-state';
import { consumer, T0, tier1m, world } from './park-by-key-world';

describe('park-by-key ordering', () => {
  it('keeps the failing key and its parked records in the main partition commit, so a restarted consumer keeps them in order', async () => {
    const w = world();
    w.failOnce.add('order-42:created');
    ['created', 'paid'].forEach((v) => w.produce('order-42', v));
    w.produce('order-7', 'x');
    const first = await w.start();
    await w.broker.run({ until: T0 });
    await first.stop();

    expect(w.handled).toEqual(['order-42:created FAIL', 'order-7:x']);
    // Committed at the parked record, so a restart reads again from there; the metadata says the rest.
    expect(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(1);
    const state = w.parkState();
    expect(state.position).toBe(3n);
    expect([...state.held]).toEqual([[keyHash(Buffer.from('order-42')), 0n]]);
    expect([...state.parked]).toEqual([[1n, keyHash(Buffer.from('order-42'))]]);

    const second = await w.start();
    w.produce('order-42', 'shipped'); // arrives while the key is still in retry
    await w.broker.run();
    await second.stop();
    expect(w.handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-42:created', 'order-42:paid', 'order-42:shipped']);
    // The group had no commit when it began: the state keeps the id it took then.
    expect(w.parkState()).toEqual({ position: 4n, held: new Map(), parked: new Map(), id: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/) });
    expect(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(4);
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(1);
  });

  it('re-reads parked records after a rebalance and runs each of them once', async () => {
    const w = world();
    w.failOnce.add('k:a');
    ['a', 'b', 'c'].forEach((v) => w.produce('k', v));
    w.produce('other', 'z');
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    w.broker.rebalance(consumer.groups.main);
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['k:a FAIL', 'other:z', 'k:a', 'k:b', 'k:c']);
  });

  it('neither runs nor is released by a late duplicate of an earlier retry of the key', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.failOnce.add('k:b');
    ['a', 'b', 'c'].forEach((v) => w.produce('k', v));
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    // A second copy of a's tier record right behind it (a publish retried after a crash, say).
    const [aInTier] = w.broker.records(tier1m!.topic, 0);
    w.broker.append(tier1m!.topic, { key: aInTier!.key, value: aInTier!.value, headers: aInTier!.headers, partition: 0 });
    // At 1m: a succeeds and releases the key; b, unparked, fails into the tier and holds it;
    // a's copy is stale (b holds the key): committed without running, a never lands over b.
    await w.broker.run({ until: T0 + 60_000 });
    expect(w.handled).toEqual(['k:a FAIL', 'k:a', 'k:b FAIL']);
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toHaveLength(1);
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['k:a FAIL', 'k:a', 'k:b FAIL', 'k:b', 'k:c']);
  });

  it('pauses a main partition whose state reaches the commit-metadata budget, and resumes it when a key is released', async () => {
    const w = world();
    const keys = Array.from({ length: 6 }, (_, i) => `key-${i}`);
    for (const key of keys) {
      w.failOnce.add(`${key}:1`);
      w.produce(key, '1');
      w.produce(key, '2');
    }
    const retrying = await w.start({ parkingBudgetBytes: 120 });
    await w.broker.run({ until: T0 });
    const full = w.events.find((e) => e.type === 'parking-full');
    expect(full).toMatchObject({ type: 'parking-full', topic: consumer.mainTopic, partition: 0 });
    expect(w.handled.length).toBeLessThan(keys.length); // not every key reached its first attempt before the pause
    await w.broker.run();
    await retrying.stop();
    for (const key of keys) {
      const mine = w.handled.filter((h) => h.startsWith(`${key}:`));
      expect(mine).toEqual([`${key}:1 FAIL`, `${key}:1`, `${key}:2`]);
    }
    expect(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0)!.length).toBeLessThanOrEqual(120);
  });

  it('releases a key whose record reaches the DLQ, then runs its parked records', async () => {
    const w = world();
    w.alwaysFail.add('k:poison-later');
    w.produce('k', 'poison-later');
    w.produce('k', 'next');
    const retrying = await w.start();
    await w.broker.run();
    await retrying.stop();
    expect(w.handled.filter((h) => h === 'k:poison-later FAIL')).toHaveLength(4);
    expect(w.handled.at(-1)).toBe('k:next');
    expect(w.broker.records(consumer.dlqTopic, 0).map((r) => r.value?.toString())).toEqual(['poison-later']);
    expect(w.parkState().held.size).toBe(0);
  });

  it('never parks keyless records: one failing keyless record does not hold back the others', async () => {
    const w = world();
    w.failOnce.add('undefined:a');
    for (const v of ['a', 'b', 'c']) w.broker.append(consumer.mainTopic, { key: null, value: Buffer.from(v), partition: 0 });
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    expect(w.handled).toEqual(['undefined:a FAIL', 'undefined:b', 'undefined:c']);
    expect(w.events.filter((e) => e.type === 'parked')).toEqual([]);
    await w.broker.run();
    await retrying.stop();
    expect(w.handled.at(-1)).toBe('undefined:a');
    expect(w.parkState()).toMatchObject({ held: new Map(), parked: new Map() });
  });
});
