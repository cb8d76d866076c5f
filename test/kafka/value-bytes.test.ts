import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { DecodedRecord } from '../../src/runtime/value-codec';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, createTopicsOf, kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { eachClient } from './clients';

jest.setTimeout(180_000);

interface RawRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

/** Every record of a topic, bytes as the broker holds them, read by the admin with kafkajs. */
async function readAll(topic: string, count: number, keep: (r: RawRecord) => boolean = () => true): Promise<RawRecord[]> {
  const out: RawRecord[] = [];
  const consumer = kafkaAsAdmin().consumer({ groupId: `read-${topic}-${randomBytes(3).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const record = { key: message.key, value: message.value, headers: message.headers ?? {} };
      if (keep(record)) out.push(record);
    },
  });
  try {
    await eventually(`${count} records in ${topic}`, () => (out.length >= count ? true : undefined), 60_000);
  } finally {
    await consumer.disconnect();
  }
  return out;
}

async function recordsIn(topic: string): Promise<number> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

async function produce(topic: string, messages: { key: Buffer | string; value: Buffer | string; headers?: Record<string, Buffer | string> }[]): Promise<void> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: messages.map((m) => ({ ...m, partition: 0 })) });
  } finally {
    await producer.disconnect();
  }
}

const Order = z.object({ orderId: z.string(), amountCents: z.number().int() });

/** Confluent's wire format around a payload that is not valid UTF-8 (an Avro record, say). */
const FRAMED = Buffer.concat([Buffer.from([0, 0, 0, 0x01, 0x2c]), Buffer.from([0x02, 0xc3, 0x28, 0xff, 0xfe, 0x00, 0x80])]);
const NOT_UTF8 = Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x41]);
const BINARY_KEY = Buffer.from([0xff, 0x00, 0xfe, 0xc3]);
const BINARY_HEADER = Buffer.from([0x00, 0x9f, 0x92, 0x96, 0xff]);

eachClient('record values on a real broker', (port) => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('hands a valid record to the handler typed, and sends a malformed one to the DLQ at attempt 1 as a DeserializationError, never through the tiers', async () => {
    const d: ConsumerDescriptor = { ...testDescriptor('typed', [1]), value: { kind: 'json-schema', schema: z.toJSONSchema(Order, { io: 'input' }) as Record<string, unknown> } };
    await createTopicsOf(d, 1);
    const handled: z.infer<typeof Order>[] = [];
    consumer = createRetryingConsumer<DecodedRecord<z.infer<typeof Order>>>(d, { kafka: port(), handler: async ({ value }) => void handled.push(value) });
    await consumer.start();
    await produce(d.mainTopic, [
      { key: 'o-1', value: '{"orderId":"o-1","amountCents":"twelve"}' },
      { key: 'o-2', value: '{"orderId":"o-2","amountCents":1200}' },
    ]);

    await eventually('the valid record handled', () => (handled.length > 0 ? true : undefined), 60_000);
    expect(handled).toEqual([{ orderId: 'o-2', amountCents: 1200 }]);
    const [dead] = await readAll(d.dlqTopic, 1);
    expect(dead!.value!.toString()).toBe('{"orderId":"o-1","amountCents":"twelve"}');
    const headers = decodeRetryHeaders(dead!.headers);
    expect(headers).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
    expect(headers.errorMessage).toContain('amountCents');
    expect(await recordsIn(d.tiers[0]!.topic)).toBe(0);
    expect(await consumer.metrics.registry.metrics()).toContain(`kafka_dlq_routed_total{consumer="${d.name}",error_class="deserialization"} 1`);
  });

  it('passes a Schema Registry-framed value, a value and a key that are not UTF-8, and a binary header byte for byte through the tier and the DLQ', async () => {
    const d = testDescriptor('bytes', [1]);
    await createTopicsOf(d, 1);
    const seen: { topic: string; key: Buffer | null; value: Buffer | null }[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      handler: async ({ topic, message }) => {
        seen.push({ topic, key: message.key, value: message.value });
        // First a downstream outage (a tier), then a permanent error (the DLQ).
        if (topic === d.mainTopic) throw Object.assign(new Error('payments 503'), { name: 'HTTPError', status: 503 });
        throw new SyntaxError('unreadable');
      },
    });
    await consumer.start();
    const sent = [
      { key: BINARY_KEY, value: FRAMED, headers: { 'trace-bin': BINARY_HEADER } },
      { key: NOT_UTF8, value: NOT_UTF8, headers: { 'trace-bin': BINARY_HEADER } },
    ];
    await produce(d.mainTopic, sent);

    const tier = await readAll(d.tiers[0]!.topic, 2);
    const dead = await readAll(d.dlqTopic, 2);
    const hex = (b: Buffer | string | null | undefined) => (Buffer.isBuffer(b) ? b.toString('hex') : `not bytes: ${String(b)}`);
    const expected = sent.map((s) => ({ key: hex(s.key), value: hex(s.value), header: hex(BINARY_HEADER) }));
    for (const records of [tier, dead]) {
      expect(records.map((r) => ({ key: hex(r.key), value: hex(r.value), header: hex(r.headers['trace-bin'] as Buffer) }))).toEqual(expected);
    }
    await eventually('the handler saw each record on the main topic and the tier', () => (seen.length >= 4 ? true : undefined), 60_000);
    expect(seen.map((s) => [s.topic, s.key?.toString('hex'), s.value?.toString('hex')])).toEqual([
      ...sent.map((s) => [d.mainTopic, s.key.toString('hex'), s.value.toString('hex')]),
      ...sent.map((s) => [d.tiers[0]!.topic, s.key.toString('hex'), s.value.toString('hex')]),
    ]);
  });
});

describe('framed and non-UTF-8 records in the DLQ tools on a real broker', () => {
  const run = `bytes-${randomBytes(3).toString('hex')}`;
  const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: 'orders-replay', KAFKA_SASL_PASSWORD: passwordOf('orders-replay'), KAFKA_SSL: 'false' };
  async function krt(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, { cwd: REPO_ROOT, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  }
  const DLQ = 'orders.confirmed.dlq';
  const TIER = 'orders.confirmed.retry.1m';
  /** A key that is not UTF-8 but starts with this run's marker, so the test finds its own records. */
  const binaryKey = Buffer.concat([Buffer.from(run), Buffer.from([0xff, 0xfe])]);
  const failure = { [HEADERS.originalTopic]: 'orders.confirmed', [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '0', [HEADERS.attempt]: '1', [HEADERS.errorClass]: 'DeserializationError', [HEADERS.errorMessage]: 'unknown schema' };

  it('inspect --json gives the schema id and base64 that decodes to the very bytes, and replay publishes them unchanged', async () => {
    const sent = [
      { key: binaryKey, value: FRAMED, headers: { ...failure, 'trace-bin': BINARY_HEADER } },
      { key: Buffer.from(`${run}-text-key`), value: NOT_UTF8, headers: { ...failure, 'trace-bin': BINARY_HEADER } },
    ];
    await produce(DLQ, sent);

    const inspected = await krt('dlq', 'inspect', 'billing-order-confirmed', '--json');
    expect(inspected.code).toBe(0);
    type Inspected = { id: string; key: string; keyEncoding: string; value: string; valueEncoding: string; valueSchemaId: number | null; errorClass: string };
    const decode = (text: string, encoding: string) => Buffer.from(text, encoding as BufferEncoding);
    const ours = (JSON.parse(inspected.stdout).records as Inspected[]).filter((r) => decode(r.key, r.keyEncoding).toString('latin1').startsWith(run));
    expect(ours.map((r) => ({ key: decode(r.key, r.keyEncoding).toString('hex'), value: decode(r.value, r.valueEncoding).toString('hex'), encoding: r.valueEncoding, schemaId: r.valueSchemaId, errorClass: r.errorClass }))).toEqual([
      { key: binaryKey.toString('hex'), value: FRAMED.toString('hex'), encoding: 'base64', schemaId: 300, errorClass: 'DeserializationError' },
      { key: sent[1]!.key.toString('hex'), value: NOT_UTF8.toString('hex'), encoding: 'base64', schemaId: null, errorClass: 'DeserializationError' },
    ]);
    const text = await krt('dlq', 'inspect', 'billing-order-confirmed');
    expect(text.stdout).toMatch(new RegExp(`${ours[0]!.id} .* schema-id=300  DeserializationError: unknown schema`));

    const replay = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', ours.map((r) => r.id).join(','), '--rate', '5', '--by', 'tester');
    expect(replay.code).toBe(0);
    const replayed = await readAll(TIER, 2, (r) => r.key?.toString('latin1').startsWith(run) ?? false);
    const hex = (b: Buffer | string | (Buffer | string)[] | null | undefined) => (Buffer.isBuffer(b) ? b.toString('hex') : `not bytes: ${String(b)}`);
    expect(replayed.map((r) => ({ key: hex(r.key), value: hex(r.value), header: hex(r.headers['trace-bin']) }))).toEqual(
      sent.map((m) => ({ key: m.key.toString('hex'), value: m.value.toString('hex'), header: BINARY_HEADER.toString('hex') })),
    );
  });
});
