import { confluentPort } from '../../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';
import { coalescingProducer } from '../../src/runtime/coalescing-producer';
import type { OutgoingMessage } from '../../src/runtime/port';

/**
 * The Confluent client's send() rewrites the messages it is given (lib/kafkajs/_producer.js
 * 1.10: `msg.partition = -1`, `msg.timestamp`, `msg.headers = convertToRdKafkaHeaders(...)`).
 * The coalescing producer sends a refused request's messages again one by one (a partition
 * one record lacks): those were already rewritten, and their headers converted a second time
 * came out as a header named "0" holding an object, which the native layer cannot write
 * (found by a review of the clients' silent successes, session 45).
 */
function rewritingConfluent() {
  const written: { topic: string; headers: unknown }[] = [];
  let release!: () => void;
  let gate: Promise<void> | undefined = new Promise((r) => (release = r));
  /** As the client's send(): rewrites each message, then refuses the request when a record's partition is unknown. The first request waits for release(). */
  const send = async ({ topic, messages }: { topic: string; messages: Record<string, unknown>[] }) => {
    const waitFor = gate;
    gate = undefined;
    await waitFor;
    for (const m of messages) {
      if (!Object.hasOwn(m, 'partition')) m.partition = -1;
      m.timestamp = 0;
      m.headers = m.headers ? Object.entries(m.headers).map(([k, v]) => ({ [k]: v })) : null;
    }
    if (messages.some((m) => m.partition === 9)) throw new Error('Local: Unknown partition');
    for (const m of messages) written.push({ topic, headers: m.headers });
  };
  const kafka = {
    consumer: () => ({}),
    producer: () => ({
      connect: async () => {},
      disconnect: async () => {},
      send,
      sendBatch: async ({ topicMessages }: { topicMessages: { topic: string; messages: Record<string, unknown>[] }[] }) => {
        for (const t of topicMessages) await send(t);
      },
    }),
    admin: () => ({}),
  } as unknown as ConfluentKafkaLike;
  return { kafka, written, release: () => release() };
}

describe("the Confluent adapter's producer", () => {
  it('leaves the messages it is given as they were made, so a record sent again is written with its own headers', async () => {
    const { kafka, written, release } = rewritingConfluent();
    const producer = coalescingProducer(confluentPort(kafka).producer());
    const message = (partition: number, dueAt: string): OutgoingMessage => ({ key: Buffer.from('k'), value: Buffer.from('v'), partition, headers: { 'x-due-at': dueAt } });
    const [first, good, lacking] = [message(0, '1'), message(1, '123'), message(9, '456')];
    const sends = [producer.send({ topic: 't', messages: [first] })];
    // Queued while the first request is in flight: sent together, refused for the lacking
    // partition, then one by one.
    sends.push(producer.send({ topic: 't', messages: [good] }), producer.send({ topic: 't', messages: [lacking] }));
    release();
    const outcomes = await Promise.allSettled(sends);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(written).toEqual([
      { topic: 't', headers: [{ 'x-due-at': '1' }] },
      { topic: 't', headers: [{ 'x-due-at': '123' }] },
    ]);
    expect(good).toEqual(message(1, '123'));
  });
});
