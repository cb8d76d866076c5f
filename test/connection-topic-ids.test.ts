import type { Kafka } from 'kafkajs';
import { sayingFirstFailure, withTopicIds } from '../src/connection/topic-ids';
import { topicIdOf } from '../src/dlq/topic-id';
import type { KafkaAdmin } from '../src/dlq/group-commits';

const adminReporting = (topicId?: unknown) =>
  ({ fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({ topics: topics.map((name) => ({ name, partitions: [], ...(topicId === undefined ? {} : { topicId }) })) }) }) as unknown as KafkaAdmin;

describe('a topic\'s id as the DLQ tools read it', () => {
  it('is the id the admin reports', async () => {
    expect(await topicIdOf(adminReporting('q2Lp0cXuR3WbVhA7nN1k9w'), 'orders.dlq')).toBe('q2Lp0cXuR3WbVhA7nN1k9w');
  });

  it('is none where the admin reports none (kafkajs), an empty one, or Kafka\'s all-zero id', async () => {
    expect(await topicIdOf(adminReporting(), 'orders.dlq')).toBeUndefined();
    expect(await topicIdOf(adminReporting(''), 'orders.dlq')).toBeUndefined();
    expect(await topicIdOf(adminReporting('AAAAAAAAAAAAAAAAAAAAAA'), 'orders.dlq')).toBeUndefined();
  });
});

describe('a kafkajs client given a topic id reader', () => {
  const kafka = { admin: () => adminReporting(), producer: () => 'producer', consumer: () => 'consumer', logger: () => 'logger' } as unknown as Kafka;

  it('reports each topic\'s id in its admin\'s metadata, and is otherwise the client', async () => {
    const read = jest.fn(async (topic: string) => `id-of-${topic}`);
    const withIds = withTopicIds(kafka, read);
    expect(await topicIdOf(withIds.admin(), 'orders.dlq')).toBe('id-of-orders.dlq');
    expect(read).toHaveBeenCalledWith('orders.dlq');
    expect([withIds.producer(), withIds.consumer({ groupId: 'g' }), withIds.logger()]).toEqual(['producer', 'consumer', 'logger']);
  });

  it('reads ids only for the topics asked for by name, not for every topic of an answer about all', async () => {
    const read = jest.fn(async (topic: string) => `id-of-${topic}`);
    const all = { ...kafka, admin: () => ({ fetchTopicMetadata: async () => ({ topics: [{ name: 'a', partitions: [] }, { name: 'b', partitions: [] }] }) }) } as unknown as Kafka;
    const answer = await withTopicIds(all, read).admin().fetchTopicMetadata({ topics: ['b'] });
    expect(answer.topics).toEqual([{ name: 'a', partitions: [] }, { name: 'b', partitions: [], topicId: 'id-of-b' }]);
    await withTopicIds(all, read).admin().fetchTopicMetadata();
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('is the client itself where there is no reader (the Confluent client not installed)', () => {
    expect(withTopicIds(kafka, undefined)).toBe(kafka);
  });
});

describe('a topic id reader that says its first failure', () => {
  it('says the first failed read once, and still fails every failed read (a check must not pass on a read that failed)', async () => {
    const notices: unknown[] = [];
    let fails = true;
    const read = sayingFirstFailure(async (topic) => {
      if (fails) throw new Error('Local: Broker transport failure');
      return `id-of-${topic}`;
    }, (error) => notices.push(error));
    await expect(read('orders.dlq')).rejects.toThrow('Broker transport failure');
    await expect(read('orders.dlq')).rejects.toThrow('Broker transport failure');
    fails = false;
    expect(await read('orders.dlq')).toBe('id-of-orders.dlq');
    expect(notices.map(String)).toEqual(['Error: Local: Broker transport failure']);
  });
});
