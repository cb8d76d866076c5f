import { confluentPort } from '../../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';
import type { EachBatchPayload } from '../../src/runtime/port';

const A = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
const B = Buffer.from('fedcba9876543210fedcba9876543210', 'hex');

/** A stand-in for the Confluent client whose admin answers each topic's id as librdkafka spells it (standard base64). */
function fakeConfluent() {
  const ids = new Map<string, Buffer | Error>([['orders', A]]);
  const calls: string[] = [];
  /** Partitions whose seek the client refuses (a rebalance under way). */
  const refusing = new Set<number>();
  let eachBatch: ((p: unknown) => Promise<void>) | undefined;
  const kafka = {
    consumer: () => ({
      connect: async () => {},
      disconnect: async () => {},
      subscribe: async () => {},
      run: async (r: { eachBatch: (p: unknown) => Promise<void> }) => void (eachBatch = r.eachBatch),
      pause: () => {},
      resume: () => {},
      seek: (s: { topic: string; partition: number; offset: string }) => {
        if (refusing.has(s.partition)) throw new Error('Erroneous state');
        calls.push(`seek ${s.topic}/${s.partition}@${s.offset}`);
      },
      assignment: () => [0, 1].map((partition) => ({ topic: 'orders', partition })),
      commitOffsets: async () => {},
      _getInternalClient: () => undefined,
      dependentAdmin: () => ({
        connect: async () => {},
        disconnect: async () => {},
        fetchTopicOffsets: async () => [],
        fetchTopicMetadata: async ({ topics }: { topics: string[] }) =>
          topics.map((name) => {
            const id = ids.get(name)!;
            if (id instanceof Error) throw id;
            return { name, topicId: { base64: id.toString('base64') } };
          }),
      }),
    }),
    producer: () => ({}),
  } as unknown as ConfluentKafkaLike;
  /** The payload the runtime would get for a batch of `topic` delivered now. */
  const seen: EachBatchPayload[] = [];
  const delivered = async (topic = 'orders'): Promise<EachBatchPayload> => {
    const batch = { topic, partition: 0, messages: [], highWatermark: '-1001' };
    await eachBatch!({ batch, resolveOffset: () => {}, heartbeat: async () => {}, isRunning: () => true, isStale: () => false });
    return seen.at(-1)!;
  };
  return { kafka, ids, calls, delivered, seen, refusing };
}

const until = async (met: () => boolean) => {
  for (let i = 0; i < 200 && !met(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!met()) throw new Error('not met within a second');
};

/** The first payload that names an id: the adapter's first read has landed. */
async function firstNamed(f: ReturnType<typeof fakeConfluent>): Promise<EachBatchPayload> {
  let payload = await f.delivered();
  for (let i = 0; i < 400 && payload.topicId === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    payload = await f.delivered();
  }
  return payload;
}

describe('the Confluent adapter and topic ids, which its records do not name', () => {
  it('names on each payload the id its admin read last, in Kafka\'s spelling, and seeks the topic\'s partitions to their start once the id changes', async () => {
    const f = fakeConfluent();
    const consumer = confluentPort(f.kafka, { topicIdCheckMs: 10 }).consumer('orders');
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'] });
    await consumer.run({ eachBatch: async (p) => void f.seen.push(p) });
    expect((await firstNamed(f)).topicId).toBe(A.toString('base64url'));
    expect(f.calls).toEqual([]);

    f.ids.set('orders', new Error('UNKNOWN_TOPIC_OR_PARTITION')); // deleted, not created yet: nothing changes
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(f.calls).toEqual([]);
    expect((await f.delivered()).topicId).toBe(A.toString('base64url'));

    f.ids.set('orders', B); // created again
    await until(() => f.calls.length === 2);
    expect(f.calls).toEqual(['seek orders/0@0', 'seek orders/1@0']);
    expect((await f.delivered()).topicId).toBe(B.toString('base64url'));

    f.ids.set('orders', A); // a broker answering from stale metadata: no newer log
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(f.calls).toHaveLength(2);
    expect((await f.delivered()).topicId).toBe(B.toString('base64url'));
    await consumer.disconnect();
  });

  it('still seeks the other partitions of a topic created again when the client refuses one seek', async () => {
    const f = fakeConfluent();
    f.refusing.add(0);
    const consumer = confluentPort(f.kafka, { topicIdCheckMs: 10 }).consumer('orders');
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'] });
    await consumer.run({ eachBatch: async (p) => void f.seen.push(p) });
    await firstNamed(f);
    f.ids.set('orders', B);
    await until(() => f.calls.length === 1);
    expect(f.calls).toEqual(['seek orders/1@0']);
    await consumer.disconnect();
  });

  it('names no id when told to read none', async () => {
    const f = fakeConfluent();
    const consumer = confluentPort(f.kafka, { topicIdCheckMs: 0 }).consumer('orders');
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'] });
    await consumer.run({ eachBatch: async (p) => void f.seen.push(p) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await f.delivered()).topicId).toBeUndefined();
    await consumer.disconnect();
  });
});
