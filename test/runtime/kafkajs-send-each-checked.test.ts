import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { KafkaJsLike } from '../../src/runtime/adapters/kafkajs';
import { NotWrittenError } from '../../src/runtime/adapters/kafkajs-written';
import type { OutgoingMessage } from '../../src/runtime/port';
import { UnknownPartitionError, publishFailureReason } from '../../src/runtime/publish-failure';

type Request = { topic: string; messages: OutgoingMessage[] }[];

/**
 * A kafkajs producer as kafkajs answers: each partition written, once per request. `leaveOut`
 * says which record it drops while resolving (its retry kept a broker's first answer, which did
 * not cover the partition the record went to after its leader moved). A record without a
 * partition goes to partition 0 here (its partitioner's choice).
 */
function kafkajsProducing(leaveOut: (m: OutgoingMessage) => boolean = () => false) {
  const requests: Request[] = [];
  const answer = (request: Request) => {
    requests.push(request);
    return request.flatMap(({ topic, messages }) => [...new Set(messages.filter((m) => !leaveOut(m)).map((m) => m.partition ?? 0))].map((partition) => ({ topicName: topic, partition })));
  };
  const kafka = {
    consumer: () => ({}),
    producer: () => ({
      connect: async () => {},
      disconnect: async () => {},
      send: async ({ topic, messages }: { topic: string; messages: OutgoingMessage[] }) => answer([{ topic, messages }]).map(({ partition }) => ({ partition })),
      sendBatch: async ({ topicMessages }: { topicMessages: Request }) => answer(topicMessages),
    }),
  } as unknown as KafkaJsLike;
  return { producer: kafkajsPort(kafka).producer(), requests };
}

const record = (value: string, partition?: number): OutgoingMessage => ({ key: Buffer.from('k'), value: Buffer.from(value), headers: {}, ...(partition === undefined ? {} : { partition }) });
const values = (request: Request) => request.flatMap((r) => r.messages.map((m) => m.value!.toString()));

describe('the kafkajs adapter checks that kafkajs wrote every record it was given', () => {
  it('refuses a send when kafkajs resolves without a record placed by its partitioner (a tier smaller than its main topic), so the publish goes out again instead of being lost', async () => {
    const { producer } = kafkajsProducing((m) => m.partition === undefined);
    const refused = producer.sendBatch!([{ topic: 'orders.retry.1m', messages: [record('unplaced')] }]);
    await expect(refused).rejects.toBeInstanceOf(NotWrittenError);
    await expect(refused).rejects.toThrow('kafkajs answered a send to orders.retry.1m without writing the record');
    expect(publishFailureReason(await refused.catch((e: unknown) => e))).toBe('other');
  });

  it('sends each record without a partition in a request of its own, so the answer can only name it; records with one go together first', async () => {
    const { producer, requests } = kafkajsProducing();
    await producer.sendBatch!([
      { topic: 'orders.retry.1m', messages: [record('a', 1), record('b'), record('c', 2), record('d')] },
      { topic: 'orders.dlq', messages: [record('e', 0)] },
    ]);
    expect(requests.map(values)).toEqual([['a', 'c', 'e'], ['b'], ['d']]);
  });

  it('refuses a record with a partition that kafkajs left out, through send() as through sendBatch()', async () => {
    const { producer } = kafkajsProducing((m) => m.partition === 2);
    await expect(producer.send({ topic: 'orders.retry.1m', messages: [record('a', 1), record('c', 2)] })).rejects.toThrow(new UnknownPartitionError('orders.retry.1m', 2));
    await expect(producer.sendBatch!([{ topic: 'orders.retry.1m', messages: [record('c', 2)] }])).rejects.toBeInstanceOf(UnknownPartitionError);
  });

  it('resolves when every record was written, placed or not', async () => {
    const { producer, requests } = kafkajsProducing();
    await producer.send({ topic: 'orders.retry.1m', messages: [record('a', 1), record('b')] });
    expect(requests.map(values)).toEqual([['a'], ['b']]);
  });
});
