import { HEADERS, SPRING_DLT_HEADERS } from '../../src/naming/headers';
import { createRouter } from '../../src/runtime/router';
import type { OutgoingMessage } from '../../src/runtime/port';
import { billingDescriptor } from './descriptor';

function recordingProducer() {
  const sent: { topic: string; message: OutgoingMessage }[] = [];
  return {
    sent,
    producer: {
      connect: async () => {},
      disconnect: async () => {},
      send: async ({ topic, messages }: { topic: string; messages: OutgoingMessage[] }) => {
        for (const message of messages) sent.push({ topic, message });
      },
    },
  };
}

const clock = { now: () => 5_000, setTimer: () => () => {}, sleep: async () => {} };
const record = {
  topic: 'orders.confirmed',
  partition: 7,
  message: { key: Buffer.from('order-9'), value: Buffer.from('{"id":9}'), headers: { 'event-id': 'e-9' }, offset: '41', timestamp: '4000' },
};

describe('the low-level router', () => {
  it('decides, publishes with the original key, value and partition, and says which offset to commit', async () => {
    const { sent, producer } = recordingProducer();
    const router = createRouter(billingDescriptor(), { producer, clock });
    const error = Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
    const destination = router.decide(record, error, 1);
    expect(destination).toMatchObject({ kind: 'tier', attempt: 2, dueAt: 65_000 });
    const commit = await router.publish(record, error, destination as Exclude<typeof destination, { kind: 'in-place' }>);
    expect(commit).toEqual({ topic: 'orders.confirmed', partition: 7, offset: '42' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.topic).toBe('orders.confirmed.retry.1m');
    expect(sent[0]!.message).toMatchObject({ key: record.message.key, value: record.message.value, partition: 7 });
    expect(sent[0]!.message.headers).toMatchObject({ 'event-id': 'e-9', [HEADERS.attempt]: '2', [HEADERS.originalOffset]: '41', [HEADERS.dueAt]: '65000' });
  });

  it("adds Spring's headers to DLQ records with the x+spring style, stack traces only when asked", async () => {
    const { sent, producer } = recordingProducer();
    const error = new TypeError('boom');
    const plain = createRouter(billingDescriptor({ headerStyle: 'x+spring' }), { producer, clock });
    await plain.publish(record, error, { kind: 'dlq', attempt: 1, reason: 'permanent' });
    expect(sent[0]!.topic).toBe('orders.confirmed.dlq');
    expect(sent[0]!.message.headers[SPRING_DLT_HEADERS.originalPartition]).toEqual(Buffer.from([0, 0, 0, 7]));
    expect(sent[0]!.message.headers[SPRING_DLT_HEADERS.exceptionStacktrace]).toBeUndefined();
    const withTraces = createRouter(billingDescriptor({ headerStyle: 'x+spring' }), { producer, clock, includeStackTraces: true });
    await withTraces.publish(record, error, { kind: 'dlq', attempt: 1, reason: 'permanent' });
    expect(String(sent[1]!.message.headers[SPRING_DLT_HEADERS.exceptionStacktrace])).toContain('TypeError: boom');
  });

  it('leaves Spring headers out with the plain x style', async () => {
    const { sent, producer } = recordingProducer();
    await createRouter(billingDescriptor(), { producer, clock }).publish(record, new TypeError('boom'), { kind: 'dlq', attempt: 1, reason: 'permanent' });
    expect(Object.keys(sent[0]!.message.headers).filter((h) => h.startsWith('kafka_dlt-'))).toEqual([]);
  });

  it('keeps the original coordinates of a record that comes from a tier', async () => {
    const { sent, producer } = recordingProducer();
    const fromTier = {
      ...record,
      topic: 'orders.confirmed.retry.1m',
      message: { ...record.message, offset: '3', headers: { [HEADERS.originalTopic]: 'orders.confirmed', [HEADERS.originalPartition]: '7', [HEADERS.originalOffset]: '41', [HEADERS.firstFailedAt]: '1000' } },
    };
    await createRouter(billingDescriptor(), { producer, clock }).publish(fromTier, new Error('x'), { kind: 'dlq', attempt: 2, reason: 'retries-exhausted' });
    expect(sent[0]!.message.headers).toMatchObject({ [HEADERS.originalOffset]: '41', [HEADERS.firstFailedAt]: '1000', [HEADERS.attempt]: '2' });
  });

  it('rejects when the broker does not acknowledge, so the caller does not commit', async () => {
    const producer = { connect: async () => {}, disconnect: async () => {}, send: async () => Promise.reject(new Error('not authorized')) };
    await expect(createRouter(billingDescriptor(), { producer, clock }).publish(record, new Error('x'), { kind: 'dlq', attempt: 1, reason: 'permanent' })).rejects.toThrow('not authorized');
  });
});
