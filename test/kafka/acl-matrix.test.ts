import type { Kafka } from 'kafkajs';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { kafkaAs, kafkaAsAdmin } from '../helpers/kafka';

jest.setTimeout(120_000);

const MAIN = 'orders.confirmed';
const TIER = 'orders.confirmed.retry.1m';
const DLQ = 'orders.confirmed.dlq';
const OTHER_DLQ = 'orders.confirmed.analytics-orders.dlq';

type Outcome = 'ok' | string;

/** The broker's error code behind a kafkajs error, however deeply kafkajs wrapped it. */
function errorType(error: unknown): string {
  let e = error as { type?: string; cause?: unknown; originalError?: unknown; message?: string } | undefined;
  const first = e?.message ?? String(error);
  for (let depth = 0; e && depth < 5; depth++) {
    if (e.type) return e.type;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return first;
}

async function write(kafka: Kafka, topic: string): Promise<Outcome> {
  const producer = kafka.producer({ retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: [{ key: 'acl-test', value: 'acl-test' }] });
    return 'ok';
  } catch (error) {
    return errorType(error);
  } finally {
    await producer.disconnect();
  }
}

/** Reads one record of `topic` in `groupId`, or says why the broker refused. */
async function read(kafka: Kafka, groupId: string, topic: string): Promise<Outcome> {
  // Retries ride out the group coordinator's start-up; authorization errors are not retried.
  const consumer = kafka.consumer({ groupId, retry: { retries: 10, initialRetryTime: 200 }, sessionTimeout: 10_000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    return await new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), 20_000);
      consumer.on(consumer.events.CRASH, (event) => {
        clearTimeout(timer);
        resolve(errorType(event.payload.error));
      });
      void consumer
        .run({
          autoCommit: false,
          eachMessage: async () => {
            clearTimeout(timer);
            resolve('ok');
          },
        })
        .catch((error: unknown) => resolve(errorType(error)));
    });
  } catch (error) {
    return errorType(error);
  } finally {
    await consumer.disconnect();
  }
}

beforeAll(async () => {
  // One record in every topic the matrix reads, written by the admin.
  const admin = kafkaAsAdmin();
  for (const topic of [MAIN, TIER, DLQ, OTHER_DLQ]) expect(await write(admin, topic)).toBe('ok');
});

describe('the consumer principal (User:billing)', () => {
  const billing = kafkaAs('billing', { retries: 8 });
  it('reads its main topic in its group', async () => expect(await read(billing, 'billing-order-confirmed', MAIN)).toBe('ok'));
  // billing orders park-by-key: one group reads the main topic and the tiers, and there is no .retry group to use.
  it('reads a tier in its main group', async () => expect(await read(billing, 'billing-order-confirmed', TIER)).toBe('ok'));
  it('has no retry group of its own', async () =>
    expect(await read(billing, 'billing-order-confirmed.retry', TIER)).toMatch(/^(GROUP_AUTHORIZATION_FAILED|Failed to find group coordinator)$/));
  it('writes its tiers and its DLQ', async () => {
    expect(await write(billing, TIER)).toBe('ok');
    expect(await write(billing, DLQ)).toBe('ok');
  });
  it('cannot write its main topic', async () => expect(await write(billing, MAIN)).toBe('TOPIC_AUTHORIZATION_FAILED'));
  it('cannot read its own DLQ', async () => expect(await read(billing, 'billing-order-confirmed', DLQ)).toBe('TOPIC_AUTHORIZATION_FAILED'));
  it("cannot read another consumer's DLQ", async () => expect(await read(billing, 'billing-order-confirmed', OTHER_DLQ)).toBe('TOPIC_AUTHORIZATION_FAILED'));
  it("cannot join another consumer's group", async () => {
    // kafkajs reports a refused FindCoordinator as "Failed to find group coordinator",
    // dropping the broker's GROUP_AUTHORIZATION_FAILED; the same read in its own group works.
    expect(await read(billing, 'analytics-orders', MAIN)).toMatch(/^(GROUP_AUTHORIZATION_FAILED|Failed to find group coordinator)$/);
  });
});

describe('the replay principal (User:orders-replay)', () => {
  const replay = kafkaAs('orders-replay', { retries: 8 });
  it('reads the DLQ in the replay group and in its reader group', async () => {
    expect(await read(replay, 'billing-order-confirmed.dlq-replay', DLQ)).toBe('ok');
    expect(await read(replay, 'billing-order-confirmed.dlq-replay-reader', DLQ)).toBe('ok');
  });
  it('writes the first tier (the default replay route) and the main topic (--to main-topic)', async () => {
    expect(await write(replay, TIER)).toBe('ok');
    expect(await write(replay, MAIN)).toBe('ok');
  });
  it('cannot read the main topic', async () => expect(await read(replay, 'billing-order-confirmed.dlq-replay', MAIN)).toBe('TOPIC_AUTHORIZATION_FAILED'));
  it('cannot write a later tier', async () => expect(await write(replay, 'orders.confirmed.retry.10m')).toBe('TOPIC_AUTHORIZATION_FAILED'));
});

describe('the monitor principal (User:orders-monitor)', () => {
  const monitor = kafkaAs('orders-monitor', { retries: 8 });
  it('reads the end offsets of tiers and DLQ and the committed offsets of the group reading the tiers and of the replay group', async () => {
    const admin = monitor.admin();
    await admin.connect();
    try {
      expect((await admin.fetchTopicOffsets(DLQ)).length).toBe(12);
      expect((await admin.fetchTopicOffsets(TIER)).length).toBe(12);
      const offsets = await admin.fetchOffsets({ groupId: 'billing-order-confirmed.dlq-replay', topics: [DLQ] });
      expect(offsets[0]!.partitions.length).toBe(12);
      await expect(admin.fetchOffsets({ groupId: 'billing-order-confirmed', topics: [TIER] })).resolves.toHaveLength(1);
    } finally {
      await admin.disconnect();
    }
  });
  it('reads the main topic\'s end offsets, the main group\'s committed offsets and a main-topic record in its own group, for main lag', async () => {
    const admin = monitor.admin();
    await admin.connect();
    try {
      expect((await admin.fetchTopicOffsets(MAIN)).length).toBe(12);
      await expect(admin.fetchOffsets({ groupId: 'billing-order-confirmed', topics: [MAIN] })).resolves.toHaveLength(1);
    } finally {
      await admin.disconnect();
    }
    await write(kafkaAsAdmin(), MAIN);
    expect(await read(monitor, 'billing-order-confirmed.dlq-monitor', MAIN)).toBe('ok');
  });
  it('reads the DLQ audit log in its own group: it tells what was handled when Kafka deleted the replay group\'s commits', async () => {
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: `${DLQ}.audit`, acks: -1, messages: [{ key: 'acl-test', value: JSON.stringify({ action: 'acl-test', dlqTopic: 'acl-matrix.probe' }) }] }).finally(() => producer.disconnect());
    const read = await kafkajsMonitorPort(monitor, 'billing-order-confirmed.dlq-monitor').readFrom!(`${DLQ}.audit`, new Map());
    expect(read.records.length).toBeGreaterThan(0);
  });
  it('cannot write anything', async () => {
    for (const topic of [MAIN, TIER, DLQ, `${DLQ}.audit`]) expect({ topic, outcome: await write(monitor, topic) }).toEqual({ topic, outcome: 'TOPIC_AUTHORIZATION_FAILED' });
  });
});
