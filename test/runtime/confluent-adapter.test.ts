import { confluentPort } from '../../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';

type ConsumerConfig = Parameters<ConfluentKafkaLike['consumer']>[0];

/** A stand-in for the Confluent client that keeps each consumer's settings and the calls it receives. */
function fakeConfluent() {
  const configs: ConsumerConfig[] = [];
  const calls: string[] = [];
  const kafka = {
    consumer(config: ConsumerConfig) {
      configs.push(config);
      return {
        connect: async () => {},
        disconnect: async () => {},
        subscribe: async () => {},
        run: async () => {},
        pause: (t: { topic: string; partitions: number[] }[]) => void calls.push(`pause ${t[0]!.topic}/${t[0]!.partitions}`),
        resume: (t: { topic: string; partitions: number[] }[]) => void calls.push(`resume ${t[0]!.topic}/${t[0]!.partitions}`),
        seek: (s: { topic: string; partition: number; offset: string }) => void calls.push(`seek ${s.topic}/${s.partition}@${s.offset}`),
        commitOffsets: async () => {},
      };
    },
    producer: () => ({ connect: async () => {}, disconnect: async () => {}, send: async () => {}, sendBatch: async () => {} }),
    admin: () => ({}),
  } as unknown as ConfluentKafkaLike;
  return { kafka, configs, calls };
}

describe('the Confluent adapter', () => {
  it('bounds what a consumer asking for small fetches keeps prefetched, and fetches again within its fetch wait once under the bound', () => {
    const { kafka, configs } = fakeConfluent();
    const port = confluentPort(kafka);
    port.consumer('orders.retry', { maxBytesPerPartition: 16 * 1024, maxWaitTimeInMs: 100 });
    port.consumer('orders');
    expect(configs[0]!['queued.max.messages.kbytes']).toBe(1024);
    expect(configs[0]!['fetch.queue.backoff.ms']).toBe(100);
    expect(configs[0]!.kafkaJS).toMatchObject({ maxBytesPerPartition: 16 * 1024, maxWaitTimeInMs: 100 });
    expect(configs[1]).not.toHaveProperty('queued.max.messages.kbytes');
    expect(configs[1]).not.toHaveProperty('fetch.queue.backoff.ms');
  });

  it('seeks a partition that waited paused at its head once more as it resumes, but not after a rebalance', () => {
    const { kafka, configs, calls } = fakeConfluent();
    const consumer = confluentPort(kafka).consumer('orders.retry');
    const tier = 'orders.retry.5s';
    consumer.pause([{ topic: tier, partitions: [1] }]);
    consumer.seek({ topic: tier, partition: 1, offset: '8' });
    consumer.resume([{ topic: tier, partitions: [1] }]);
    consumer.pause([{ topic: tier, partitions: [1] }]);
    consumer.seek({ topic: tier, partition: 1, offset: '9' });
    configs[0]!.rebalance_cb!(null, []);
    consumer.resume([{ topic: tier, partitions: [1] }]);
    expect(calls).toEqual([`pause ${tier}/1`, `seek ${tier}/1@8`, `resume ${tier}/1`, `seek ${tier}/1@8`, `pause ${tier}/1`, `seek ${tier}/1@9`, `resume ${tier}/1`]);
  });

  it('reads a park-by-key group co-partitioned: range assignment, and a main or tier partition given without its twin stays unread, with the fix said', async () => {
    const { kafka, configs } = fakeConfluent();
    const said: string[] = [];
    const consumer = confluentPort(kafka, { onNotCoPartitioned: (message) => void said.push(message) }).consumer('orders', { coPartitioned: true });
    await consumer.subscribe({ topics: ['orders', 'orders.retry.5s'] });
    expect(configs[0]!.kafkaJS.partitionAssigners).toEqual(['range']);
    const assign = { code: -175 };
    const matching = [0, 1].flatMap((partition) => ['orders', 'orders.retry.5s'].map((topic) => ({ topic, partition })));
    expect(configs[0]!.rebalance_cb!(assign, matching)).toBeUndefined(); // the group's own assignment
    // The main topic has 16 partitions, the tier 12: range gives main 6 and 7 to one member and tier 6 and 7 to another.
    const drifted = [
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((partition) => ({ topic: 'orders', partition })),
      ...[0, 1, 2, 3, 4, 5].map((partition) => ({ topic: 'orders.retry.5s', partition })),
    ];
    const kept = configs[0]!.rebalance_cb!(assign, drifted)!;
    expect(kept.filter((a) => a.topic === 'orders').map((a) => a.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(kept.filter((a) => a.topic === 'orders.retry.5s').map((a) => a.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('orders-6, orders-7');
    expect(said[0]).toContain("give the tiers exactly the main topic's partitions");
    expect(configs[0]!.rebalance_cb!({ code: -174 }, drifted)).toBeUndefined(); // revoking: nothing to choose
  });

  it('leaves an unordered consumer on the client\'s default assignment', () => {
    const { kafka, configs } = fakeConfluent();
    confluentPort(kafka).consumer('orders');
    expect(configs[0]!.kafkaJS).not.toHaveProperty('partitionAssigners');
  });
});
