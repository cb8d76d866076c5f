import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { decodeParkState, keyHash } from '../../src/runtime/park-state';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { FaultyPort } from '../../src/simulate/faulty-port';
import { eventually } from '../helpers/eventually';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { confluentKafka, expireBelow, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { CLIENTS, eachClient } from './clients';
import { consumersOn, parkByKeyConsumer as parkByKeyScene, recorder } from './park-by-key-scene';
import type { ClientName } from './clients';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(180_000);

/** A park-by-key consumer on fresh topics: one 3s tier, two partitions by default. */
const parkByKeyConsumer = (partitions = 2) => parkByKeyScene('pbk', [3], partitions);

async function committedState(d: ConsumerDescriptor, partition: number) {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] });
    const p = offsets!.partitions.find((o) => o.partition === partition)!;
    return { offset: BigInt(p.offset), ...decodeParkState(BigInt(p.offset), p.metadata) };
  } finally {
    await admin.disconnect();
  }
}

const carriers = CLIENTS.filter((c) => c.orderings.includes('park-by-key'));
const refusers = CLIENTS.filter((c) => !c.orderings.includes('park-by-key'));

eachClient('park-by-key on a real broker', { clients: carriers, consumerConfig: { sessionTimeout: 10_000 } }, (port, client) => {
  const { start, stop } = consumersOn(port);

  /**
   * A first process that leaves order-42 in retry (its `created` failed into the 3s tier), with
   * order-42's `paid` parked behind it when `withPaid`, and order-7 handled; then it stops.
   */
  const stoppedWithOrder42InRetry = async (d: ConsumerDescriptor, handled: string[], handler: (r: ConsumedRecord) => Promise<void>, withPaid: boolean) => {
    const first = await start(d, handler);
    await produceAsAdmin(d.mainTopic, [
      { key: 'order-42', value: 'created', partition: 0 },
      ...(withPaid ? [{ key: 'order-42', value: 'paid', partition: 0 }] : []),
      { key: 'order-7', value: 'x', partition: 0 },
    ]);
    await eventually('order-7 handled while order-42 waits in the tier', () => (handled.includes('order-7:x') ? true : undefined), 60_000);
    await stop(first);
    expect(handled).toEqual(['order-42:created FAIL', 'order-7:x']);
  };

  it('remembers across a restart which key is in retry and which records wait behind it', async () => {
    const d = await parkByKeyConsumer();
    const { handled, handler } = recorder(new Set(['order-42:created']));
    await stoppedWithOrder42InRetry(d, handled, handler, true);

    const state = await committedState(d, 0);
    expect(state.offset).toBe(1n); // the parked record: a new process reads again from there
    expect([...state.held.keys()]).toEqual([keyHash(Buffer.from('order-42'))]);
    expect([...state.parked]).toEqual([[1n, keyHash(Buffer.from('order-42'))]]);

    // A new process: it reads the parked key back from the group's commit.
    await start(d, handler);
    await produceAsAdmin(d.mainTopic, [{ key: 'order-42', value: 'shipped', partition: 0 }]);
    await eventually('order-42 shipped', () => (handled.includes('order-42:shipped') ? true : undefined), 60_000);
    expect(handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-42:created', 'order-42:paid', 'order-42:shipped']);
    const after = await committedState(d, 0);
    expect({ held: after.held.size, parked: after.parked.size, offset: after.offset }).toEqual({ held: 0, parked: 0, offset: 4n });
  });

  it('gives up parked records that retention deleted while the consumer was down, and runs the key\'s retry and newer records', async () => {
    const d = await parkByKeyConsumer();
    const { handled, handler } = recorder(new Set(['order-42:created']));
    await stoppedWithOrder42InRetry(d, handled, handler, true);
    expect([...(await committedState(d, 0)).parked]).toEqual([[1n, keyHash(Buffer.from('order-42'))]]);

    // Retention (here a delete-records request) takes offsets 0 and 1 while no consumer runs.
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await expireBelow(admin, d.mainTopic, 0, 2);
    } finally {
      await admin.disconnect();
    }

    const events: RetryEvent[] = [];
    await start(d, handler, { onEvent: (e) => events.push(e) });
    await eventually('order-42 created ran from the tier', () => (handled.includes('order-42:created') ? true : undefined), 60_000);
    await produceAsAdmin(d.mainTopic, [{ key: 'order-42', value: 'shipped', partition: 0 }]);
    await eventually('order-42 shipped', () => (handled.includes('order-42:shipped') ? true : undefined), 60_000);
    if (client.name === 'kafkajs') {
      // kafkajs answers its fetch below the log start by committing -2 without metadata: the state
      // is lost (said so), records from the log start run again, none is skipped.
      expect(handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-7:x', 'order-42:created', 'order-42:shipped']);
      expect(events.filter((e) => e.type === 'park-state-lost')).toEqual([expect.objectContaining({ partition: 0, offset: '2' })]);
    } else {
      expect(handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-42:created', 'order-42:shipped']);
      expect(events.filter((e) => e.type === 'parked-records-deleted')).toEqual([expect.objectContaining({ partition: 0, offsets: ['1'] })]);
    }
    await eventually('the commit past every record', async () => {
      const after = await committedState(d, 0);
      return after.offset === 4n && after.held.size === 0 && after.parked.size === 0 ? true : undefined;
    }, 30_000);
  });

  it('runs a retry in flight after an operator reset the group\'s offsets (the commit keeps its offset, its state is gone)', async () => {
    const d = await parkByKeyConsumer();
    const { handled, handler } = recorder(new Set(['order-42:created']));
    await stoppedWithOrder42InRetry(d, handled, handler, false);

    // What kafka-consumer-groups --reset-offsets --to-current leaves: the same offset, no metadata.
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await admin.setOffsets({ groupId: d.groups.main, topic: d.mainTopic, partitions: [{ partition: 0, offset: '2' }] });
    } finally {
      await admin.disconnect();
    }
    expect((await committedState(d, 0)).held.size).toBe(0);

    const events: RetryEvent[] = [];
    await start(d, handler, { onEvent: (e) => events.push(e) });
    await eventually('order-42 created ran from the tier', () => (handled.includes('order-42:created') ? true : undefined), 60_000);
    expect(handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-42:created']);
    expect(events.filter((e) => e.type === 'park-state-lost')).toEqual([{ type: 'park-state-lost', topic: d.mainTopic, partition: 0, offset: '2', metadata: 'none' }]);
  });

  it('finding 1 (#28): a partition at its parking budget is not left paused by one failed commit that releases a key', async () => {
    const d = await parkByKeyConsumer();
    const { handled, handler } = recorder(new Set(['J:0', 'K:0']));
    // The first commit of a main state that holds fewer keys than the one before (a key's
    // release; its tier offsets go in a request after it) fails once.
    let heldBefore = 0;
    const releasesAKey = (offsets: readonly { topic: string; offset: string; metadata?: string | null }[]) => {
      const state = offsets.find((o) => o.topic === d.mainTopic && o.metadata);
      if (!state) return false;
      const held = decodeParkState(BigInt(state.offset), state.metadata).held.size;
      const released = held < heldBefore;
      heldBefore = held;
      return released;
    };
    const faulty = new FaultyPort(port(), { faults: [{ operation: 'commit', at: 0, times: 1, when: releasesAKey }] });
    await start(d, handler, { kafka: faulty.port(), parkingBudgetBytes: 120 });
    const kRecords = Array.from({ length: 41 }, (_, i) => ({ key: 'K', value: String(i), partition: 0 }));
    await produceAsAdmin(d.mainTopic, [{ key: 'J', value: '0', partition: 0 }, ...kRecords]);
    await eventually('all 42 records handled', () => (handled.includes('K:40') && handled.includes('J:0') ? true : undefined), 90_000);
    expect(faulty.injected).toBe(1);
    const firsts = handled.filter((h, i) => handled.indexOf(h) === i && !h.endsWith('FAIL'));
    expect(firsts.filter((h) => h.startsWith('K:'))).toEqual(kRecords.map((r) => `K:${r.value}`));
    const after = await eventually('the last commit', async () => {
      const state = await committedState(d, 0);
      return state.offset === 42n ? state : undefined;
    });
    expect({ held: after.held.size, parked: after.parked.size }).toEqual({ held: 0, parked: 0 });
  });

  it('keeps each key in order and loses nothing while two members share three partitions and their tiers', async () => {
    // Two members, three partitions: an assignor that does not co-partition (round robin)
    // gives main partition p and tier partition p to different members here, and a key's
    // tier record would be run by a member that does not hold the records parked behind it.
    const d = await parkByKeyConsumer(3);
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const { handled, handler } = recorder(new Set(keys.map((k) => `${k}:1`)));
    await start(d, handler);
    await start(d, handler);
    await produceAsAdmin(
      d.mainTopic,
      keys.flatMap((key, i) => ['1', '2', '3'].map((value) => ({ key, value, partition: i % 3 }))),
    );
    await eventually('every record', () => (keys.every((k) => handled.includes(`${k}:3`)) ? true : undefined), 90_000);
    for (const key of keys) {
      const mine = handled.filter((h) => h.startsWith(`${key}:`));
      expect(mine.filter((h, i) => mine.indexOf(h) === i)).toEqual([`${key}:1 FAIL`, `${key}:1`, `${key}:2`, `${key}:3`]);
    }
  });

  it('keeps each key in order when two members share the partitions and one of them leaves', async () => {
    const d = await parkByKeyConsumer();
    const keys = ['k0', 'k1', 'k2', 'k3'];
    const failOnce = new Set(keys.map((k) => `${k}:1`));
    const { handled, handler } = recorder(failOnce);
    const a = await start(d, handler);
    await start(d, handler);
    await produceAsAdmin(
      d.mainTopic,
      keys.flatMap((key, i) => ['1', '2', '3'].map((value) => ({ key, value, partition: i % 2 }))),
    );
    await eventually('every first attempt', () => (keys.every((k) => handled.includes(`${k}:1 FAIL`)) ? true : undefined), 60_000);
    await stop(a); // its partitions move to the other member, with their parked keys
    await eventually('every record', () => (keys.every((k) => handled.includes(`${k}:3`)) ? true : undefined), 90_000);
    for (const key of keys) {
      const mine = handled.filter((h) => h.startsWith(`${key}:`));
      // A member that leaves mid-record can hand one record over twice (at least once); never out of order.
      const firsts = mine.filter((h, i) => mine.indexOf(h) === i);
      expect(firsts).toEqual([`${key}:1 FAIL`, `${key}:1`, `${key}:2`, `${key}:3`]);
      const order = mine.map((h) => firsts.indexOf(h));
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }
  });
});

describe('park-by-key moved from kafkajs to the Confluent client', () => {
  const port = (name: ClientName) => () => CLIENTS.find((c) => c.name === name)!.port(ADMIN_USER, { sessionTimeout: 10_000 });

  it('keeps the key in retry and the record parked behind it: the Confluent client reads the state kafkajs committed', async () => {
    const d = await parkByKeyConsumer();
    const { handled, handler } = recorder(new Set(['order-42:created']));
    const before = createRetryingConsumer(d, { kafka: port('kafkajs')(), handler });
    await before.start();
    await produceAsAdmin(d.mainTopic, [
      { key: 'order-42', value: 'created', partition: 0 },
      { key: 'order-42', value: 'paid', partition: 0 },
      { key: 'order-7', value: 'x', partition: 0 },
    ]);
    await eventually('order-7 handled while order-42 waits in the tier', () => (handled.includes('order-7:x') ? true : undefined), 60_000);
    await before.stop();
    const written = await committedState(d, 0);
    expect({ offset: written.offset, held: written.held.size, parked: written.parked.size }).toEqual({ offset: 1n, held: 1, parked: 1 });

    const after = createRetryingConsumer(d, { kafka: port('@confluentinc/kafka-javascript')(), handler });
    await after.start();
    try {
      await produceAsAdmin(d.mainTopic, [{ key: 'order-42', value: 'shipped', partition: 0 }]);
      await eventually('order-42 shipped', () => (handled.includes('order-42:shipped') ? true : undefined), 60_000);
      expect(handled).toEqual(['order-42:created FAIL', 'order-7:x', 'order-42:created', 'order-42:paid', 'order-42:shipped']);
      const state = await eventually('the last commit', async () => {
        const s = await committedState(d, 0);
        return s.offset === 4n ? s : undefined;
      });
      expect({ held: state.held.size, parked: state.parked.size }).toEqual({ held: 0, parked: 0 });
    } finally {
      await after.stop();
    }
  });
});

describe('park-by-key on the Confluent client when the tiers have fewer partitions than the main topic', () => {
  it('leaves the main partitions without a tier twin unread, says so with the fix, and runs the others', async () => {
    const base = testDescriptor('pbkdrift', [3]);
    const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [
        { topic: d.mainTopic, numPartitions: 3, replicationFactor: 1 },
        { topic: d.tiers[0]!.topic, numPartitions: 2, replicationFactor: 1 },
        { topic: d.dlqTopic, numPartitions: 3, replicationFactor: 1 },
      ]);
    await admin.disconnect();
    const said: string[] = [];
    const { handled, handler } = recorder(new Set());
    const consumer = createRetryingConsumer(d, {
      kafka: confluentPort(confluentKafka(ADMIN_USER), { consumerConfig: { sessionTimeout: 10_000 }, onNotCoPartitioned: (m) => void said.push(m) }),
      handler,
    });
    await consumer.start();
    try {
      await produceAsAdmin(d.mainTopic, [
        { key: 'a', value: '0', partition: 0 },
        { key: 'b', value: '2', partition: 2 },
        { key: 'c', value: '1', partition: 1 },
      ]);
      await eventually('partitions 0 and 1', () => (handled.includes('a:0') && handled.includes('c:1') ? true : undefined), 60_000);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(handled).not.toContain('b:2');
      expect(said.join('\n')).toContain(`${d.mainTopic}-2`);
      expect(said.join('\n')).toContain("give the tiers exactly the main topic's partitions");
    } finally {
      await consumer.stop();
    }
  });
});

eachClient('park-by-key on a client whose adapter cannot carry it', { clients: refusers }, (port) => {
  it('refuses to start, naming the reason and the client to use instead', async () => {
    const d = await parkByKeyConsumer();
    const consumer = createRetryingConsumer(d, { kafka: port(), handler: async () => {} });
    await expect(consumer.start()).rejects.toThrow(/^park-by-key ordering does not run on .*; run this consumer with kafkajsPort or confluentPort$/);
    await consumer.stop();
  });
});
