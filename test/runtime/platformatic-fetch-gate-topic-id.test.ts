import { createFetchGate } from '../../src/runtime/adapters/platformatic-fetch-gate';
import type { FetchCallback, FetchingConsumer, GatedFetchOptions, GatedFetchResponse } from '../../src/runtime/adapters/platformatic-fetch-gate';

/**
 * @platformatic/kafka's records carry no topic id; its fetch response names each topic by
 * one (a hyphenated hex UUID from Fetch v13 on, the topic's name on older versions), and
 * the stream pushes a response's records synchronously inside the fetch callback. The gate
 * tells, during that push, the id of the response being pushed.
 */
const ORDERS = 'orders';
const ORDERS_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
/** The same id in Kafka's spelling (URL-safe base64, no padding). */
const ORDERS_KAFKA_ID = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex').toString('base64url');
const PAYMENTS = 'payments';
const PAYMENTS_ID = 'ffeeddcc-bbaa-9988-7766-554433221100';
const PAYMENTS_KAFKA_ID = Buffer.from('ffeeddccbbaa99887766554433221100', 'hex').toString('base64url');

/** A consumer whose metadata names each topic's id and whose fetch answers every requested topic with one record. */
function consumerWith(ids: Map<string, string>): FetchingConsumer & { answer: () => void } {
  let pending: (() => void) | undefined;
  return {
    metadata: (_options, callback) => callback(null, { topics: new Map([...ids].map(([name, id]) => [name, { id }])) }),
    fetch(options: GatedFetchOptions, callback: FetchCallback) {
      const response: GatedFetchResponse = { responses: options.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, records: [{}] })) })) };
      pending = () => callback(null, response);
    },
    answer: () => pending?.(),
  };
}

/** Fetches every topic of `ids` through the gate and returns what `topicIdNow` told of each topic during the push, and after it. */
function toldDuringPush(ids: Map<string, string>, asked: string[] = [...ids.keys()]) {
  const consumer = consumerWith(ids);
  const gate = createFetchGate(consumer, () => [...ids.keys()]);
  const during = new Map<string, string | undefined>();
  consumer.fetch({ topics: [...ids.values()].map((topicId) => ({ topicId, partitions: [{ partition: 0 }] })) }, () => {
    for (const topic of asked) during.set(topic, gate.topicIdNow(topic));
  });
  consumer.answer();
  const after = new Map(asked.map((topic) => [topic, gate.topicIdNow(topic)]));
  gate.restore();
  return { during, after };
}

describe('the @platformatic/kafka fetch gate, naming topic ids', () => {
  it('tells, while the stream pushes a response, the id that response gives each topic, in Kafka\'s spelling', () => {
    const { during } = toldDuringPush(new Map([[ORDERS, ORDERS_ID], [PAYMENTS, PAYMENTS_ID]]));
    expect(during).toEqual(new Map([[ORDERS, ORDERS_KAFKA_ID], [PAYMENTS, PAYMENTS_KAFKA_ID]]));
  });

  it('tells no id outside a push, nor for a topic the response does not hold', () => {
    const { during, after } = toldDuringPush(new Map([[ORDERS, ORDERS_ID]]), [ORDERS, PAYMENTS]);
    expect(during.get(PAYMENTS)).toBeUndefined();
    expect(after).toEqual(new Map([[ORDERS, undefined], [PAYMENTS, undefined]]));
  });

  it('tells no id where the response names the topic by its name (Fetch before v13) or by the zero id (a broker before topic ids)', () => {
    const { during } = toldDuringPush(new Map([[ORDERS, ORDERS], [PAYMENTS, '00000000-0000-0000-0000-000000000000']]));
    expect(during).toEqual(new Map([[ORDERS, undefined], [PAYMENTS, undefined]]));
  });
});
