import { coalescingProducer } from '../../src/runtime/coalescing-producer';
import type { OutgoingMessage, ProducerPort } from '../../src/runtime/port';
import { UnknownPartitionError } from '../../src/runtime/publish-failure';

const message = (value: string, partition?: number): OutgoingMessage => ({ key: null, value: Buffer.from(value), headers: {}, ...(partition === undefined ? {} : { partition }) });
const valuesOf = (records: { topic: string; messages: OutgoingMessage[] }[]) => records.map((r) => `${r.topic}:${r.messages.map((m) => m.value!.toString()).join(',')}`);

/** A producer whose requests wait until the test acknowledges them, as acks=-1 round trips do. */
function slowProducer(refuse: (records: { topic: string; messages: OutgoingMessage[] }[]) => Error | undefined = () => undefined) {
  const requests: { records: { topic: string; messages: OutgoingMessage[] }[]; ack: () => void }[] = [];
  const producer: ProducerPort = {
    connect: async () => {},
    disconnect: async () => {},
    send: (record) => producer.sendBatch!([record]),
    sendBatch: (records) =>
      new Promise<void>((resolve, reject) => {
        requests.push({ records, ack: () => (refuse(records) ? reject(refuse(records)) : resolve()) });
      }),
  };
  return { producer, requests };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('the coalescing producer', () => {
  it('sends the publishes made while a request is in flight together in the next request, each resolving with its acknowledgement', async () => {
    const { producer, requests } = slowProducer();
    const coalescing = coalescingProducer(producer);
    const done: string[] = [];
    const first = coalescing.send({ topic: 'orders.retry.1m', messages: [message('a')] }).then(() => done.push('a'));
    const later = [
      coalescing.send({ topic: 'orders.retry.1m', messages: [message('b')] }).then(() => done.push('b')),
      coalescing.send({ topic: 'orders.dlq', messages: [message('c')] }).then(() => done.push('c')),
      coalescing.send({ topic: 'orders.retry.1m', messages: [message('d')] }).then(() => done.push('d')),
    ];
    await settle();
    expect(requests.map((r) => valuesOf(r.records))).toEqual([['orders.retry.1m:a']]);
    requests[0]!.ack();
    await first;
    await settle();
    expect(done).toEqual(['a']);
    expect(valuesOf(requests[1]!.records)).toEqual(['orders.retry.1m:b,d', 'orders.dlq:c']);
    requests[1]!.ack();
    await Promise.all(later);
    expect(done.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it("keeps a partition one record's destination lacks that record's own failure", async () => {
    const { producer, requests } = slowProducer((records) => {
      const bad = records.flatMap((r) => r.messages.map((m) => ({ topic: r.topic, m }))).find(({ m }) => m.partition === 9);
      return bad ? new UnknownPartitionError(bad.topic, 9) : undefined;
    });
    const coalescing = coalescingProducer(producer);
    const first = coalescing.send({ topic: 't', messages: [message('a', 0)] });
    const good = coalescing.send({ topic: 't', messages: [message('b', 1)] });
    const bad = coalescing.send({ topic: 't', messages: [message('c', 9)] });
    await settle();
    requests[0]!.ack();
    await first;
    for (let i = 1; i < 4; i++) {
      await settle();
      requests[i]?.ack();
    }
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toBeInstanceOf(UnknownPartitionError);
  });

  it('fails every publish of a request the broker refused for every topic in it, each after a request of its own', async () => {
    const { producer, requests } = slowProducer(() => new Error('Not authorized to access topics'));
    const coalescing = coalescingProducer(producer);
    const a = coalescing.send({ topic: 't', messages: [message('a')] });
    const b = coalescing.send({ topic: 't', messages: [message('b')] });
    const c = coalescing.send({ topic: 't', messages: [message('c')] });
    await settle();
    requests[0]!.ack();
    await expect(a).rejects.toThrow('Not authorized');
    const rest = Promise.allSettled([b, c]);
    for (let i = 1; i < 4; i++) {
      await settle();
      requests[i]?.ack();
    }
    expect((await rest).map((r) => r.status === 'rejected' && String(r.reason))).toEqual(['Error: Not authorized to access topics', 'Error: Not authorized to access topics']);
    // b and c together first, then each alone to learn whose refusal it is.
    expect(requests.map((r) => valuesOf(r.records))).toEqual([['t:a'], ['t:b,c'], ['t:b'], ['t:c']]);
  });

  it('publishes a tier copy sent beside a DLQ copy the principal may not write: the refusal is the DLQ copy\'s alone', async () => {
    const { producer, requests } = slowProducer((records) => (records.some((r) => r.topic === 'orders.dlq') ? new Error('Not authorized to access topics: [orders.dlq]') : undefined));
    const coalescing = coalescingProducer(producer);
    const first = coalescing.send({ topic: 'orders.retry.1m', messages: [message('a')] });
    const tier = coalescing.send({ topic: 'orders.retry.1m', messages: [message('b')] });
    const dlq = coalescing.send({ topic: 'orders.dlq', messages: [message('c')] });
    await settle();
    requests[0]!.ack();
    await first;
    const outcomes = Promise.allSettled([tier, dlq]);
    for (let i = 1; i < 4; i++) {
      await settle();
      requests[i]?.ack();
    }
    expect((await outcomes).map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
  });
});
