import { randomBytes } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { runCli } from '../../src/cli/program';
import { consumerDescriptor } from '../../src/emitters/router/descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { passwordOf } from '../../scripts/kafka/broker';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, exampleModel, kafkaAs, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(180_000);

const run = `dlq-test-${randomBytes(3).toString('hex')}`;
const env = {
  ...process.env,
  KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(),
  KAFKA_SASL_USERNAME: 'orders-replay',
  KAFKA_SASL_PASSWORD: passwordOf('orders-replay'),
  KAFKA_SSL: 'false',
};

async function krt(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { cwd: REPO_ROOT, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

interface InspectedRecord { id: string; key: string; value: string; errorClass: string; originalTopic: string; attempt: number }
async function ours(): Promise<InspectedRecord[]> {
  const { code, stdout, stderr } = await krt('dlq', 'inspect', 'billing-order-confirmed', '--json');
  if (code !== 0) throw new Error(`inspect failed: ${stderr}`);
  return (JSON.parse(stdout).records as InspectedRecord[]).filter((r) => r.value?.startsWith(run));
}

/** What inspect says is unhandled: the count and the oldest timestamp. */
async function inspectTotals(): Promise<{ unhandled: number; oldest?: number }> {
  const { stdout } = await krt('dlq', 'inspect', 'billing-order-confirmed', '--json');
  const report = JSON.parse(stdout) as { unhandled: number; records: { timestamp: string }[] };
  const times = report.records.map((r) => Date.parse(r.timestamp));
  return { unhandled: report.unhandled, oldest: times.length > 0 ? Math.min(...times) : undefined };
}

/** The monitor's gauges, read as the monitor principal, exactly as Prometheus scrapes them. */
async function gauges(consumer: ConsumerModel): Promise<{ size: number; oldest?: number; text: string }> {
  const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAs('orders-monitor'), consumer.groups.monitor) });
  const snapshot = await monitor.poll();
  return { size: snapshot.dlqSize, oldest: snapshot.oldestUnhandledAt, text: await monitor.metrics.registry.metrics() };
}

async function endOffsets(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
}

/** Every record of a topic appended after `from` total records, read by the admin. */
async function recordsOf(topic: string, predicate: (value: string) => boolean, count: number) {
  const consumer = kafkaAsAdmin().consumer({ groupId: `reader-${randomBytes(3).toString('hex')}` });
  const found: { key: string; value: string; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const value = message.value?.toString() ?? '';
      if (predicate(value)) {
        found.push({ key: message.key?.toString() ?? '', value, headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])) });
      }
    },
  });
  await eventually(`${count} records in ${topic}`, () => (found.length >= count ? true : undefined), 60_000);
  await consumer.disconnect();
  return found;
}

describe('krt dlq on a real broker, as the replay principal', () => {
  let billing: ConsumerModel;
  let admin: Admin;

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    // Three records the billing handler cannot parse: the runtime dead-letters them.
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: billing.mainTopic.name, acks: -1, messages: [1, 2, 3].map((i) => ({ key: `order-${i}`, value: `${run}-${i}` })) });
    await producer.disconnect();
    const consumer = createRetryingConsumer(consumerDescriptor(billing), {
      kafka: kafkajsPort(kafkaAs('billing')),
      handler: async (record) => {
        if (record.message.value?.toString().startsWith(run)) throw new SyntaxError(`Unexpected token in ${record.message.value.toString()}`);
      },
    });
    await consumer.start();
    await eventually('the three records in the DLQ', async () => ((await ours()).length === 3 ? true : undefined), 90_000);
    await consumer.stop();
  });
  afterAll(() => admin.disconnect());

  it('inspect lists them with their headers decoded, grouped by error class and original topic', async () => {
    const records = await ours();
    expect(records.map((r) => [r.key, r.errorClass, r.originalTopic, r.attempt]).sort()).toEqual([1, 2, 3].map((i) => [`order-${i}`, 'SyntaxError', 'orders.confirmed', 1]));
    const { stdout } = await krt('dlq', 'inspect', 'billing-order-confirmed');
    expect(stdout).toMatch(/^orders\.confirmed\.dlq \(consumer billing-order-confirmed\): \d+ unhandled records/);
    expect(stdout).toMatch(/SyntaxError {2}from orders\.confirmed: \d+/);
  });

  it('the monitor sets kafka_dlq_size and the oldest-record timestamp to what inspect sees, after routing', async () => {
    const [seen, g] = await Promise.all([inspectTotals(), gauges(billing)]);
    expect(g.size).toBe(seen.unhandled);
    expect(g.oldest).toBe(seen.oldest);
    expect(g.text).toContain(`kafka_dlq_size{consumer="billing-order-confirmed",topic="orders.confirmed.dlq"} ${seen.unhandled}`);
    expect(g.text).toContain(`kafka_dlq_oldest_unhandled_timestamp_seconds{consumer="billing-order-confirmed",topic="orders.confirmed.dlq"} ${seen.oldest! / 1000}`);
    expect(g.text).toMatch(/kafka_retry_tier_lag\{consumer="billing-order-confirmed",topic="orders\.confirmed\.retry\.1m"\} \d+/);
  });

  it('replay --dry-run publishes and commits nothing', async () => {
    const [first] = await ours();
    const before = await endOffsets(admin, billing.mainTopic.name);
    const { code, stdout } = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', first!.id, '--dry-run');
    expect(code).toBe(0);
    expect(stdout).toContain(`would replay 1 of`);
    expect(stdout).toContain('dry run: nothing was published or committed');
    expect(await endOffsets(admin, billing.mainTopic.name)).toBe(before);
    expect((await ours()).map((r) => r.id)).toContain(first!.id);
  });

  it('replay publishes back with the same key and value, x-attempt reset and x-replayed-from-dlq, audits, and commits', async () => {
    const [first, second] = await ours();
    const { code, stdout, stderr } = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', `${first!.id},${second!.id}`, '--rate', '5', '--by', 'tester');
    expect({ code, stderr: stderr.replace(/replayed \d+\/\d+\n/g, '') }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('replayed 2 records to orders.confirmed; recorded in orders.confirmed.dlq.audit as done by tester');
    const replayed = await recordsOf(billing.mainTopic.name, (v) => v === first!.value || v === second!.value, 4);
    const marked = replayed.filter((r) => r.headers[HEADERS.replayedFromDlq]);
    expect(marked.map((r) => [r.key, r.value, r.headers[HEADERS.attempt], r.headers[HEADERS.replayedFromDlq]]).sort()).toEqual(
      [
        [first!.key, first!.value, '1', `orders.confirmed.dlq/${first!.id}`],
        [second!.key, second!.value, '1', `orders.confirmed.dlq/${second!.id}`],
      ].sort(),
    );
    const audited = await recordsOf(billing.dlqAudit.name, (v) => v.includes(`"offset":"${first!.id.split(':')[1]}"`) || v.includes(`"offset":"${second!.id.split(':')[1]}"`), 2);
    expect(audited.map((a) => JSON.parse(a.value)).map((e: { action: string; by: string }) => [e.action, e.by])).toEqual([['replayed', 'tester'], ['replayed', 'tester']]);
    expect((await ours()).map((r) => r.id)).toEqual([expect.any(String)]);
    const [seen, g] = await Promise.all([inspectTotals(), gauges(billing)]);
    expect({ size: g.size, oldest: g.oldest }).toEqual({ size: seen.unhandled, oldest: seen.oldest });
  });

  it('discard needs a reason and a name, records both in the audit log, and marks the record handled', async () => {
    const [third] = await ours();
    expect((await krt('dlq', 'discard', 'billing-order-confirmed', '--ids', third!.id, '--by', 'tester')).code).toBe(2);
    const { code, stdout } = await krt('dlq', 'discard', 'billing-order-confirmed', '--ids', third!.id, '--reason', 'test data, never valid', '--by', 'tester');
    expect(code).toBe(0);
    expect(stdout).toContain(`discarded 1 record of orders.confirmed.dlq (${third!.id})`);
    const [entry] = await recordsOf(billing.dlqAudit.name, (v) => v.includes('"action":"discarded"') && v.includes(`"offset":"${third!.id.split(':')[1]}"`), 1);
    expect(JSON.parse(entry!.value)).toMatchObject({ action: 'discarded', by: 'tester', reason: 'test data, never valid', errorClass: 'SyntaxError' });
    expect(await ours()).toEqual([]);
    const [seen, g] = await Promise.all([inspectTotals(), gauges(billing)]);
    expect({ size: g.size, oldest: g.oldest }).toEqual({ size: seen.unhandled, oldest: seen.oldest });
  });

  it('refuses ids it does not know, and explains missing connection settings', async () => {
    const unknown = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', '0:999999999');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no unhandled DLQ record 0:999999999');
    let stderr = '';
    const code = await runCli(['dlq', 'inspect', 'billing-order-confirmed'], { cwd: REPO_ROOT, env: {}, stdout: () => {}, stderr: (t) => (stderr += t) });
    expect(code).toBe(2);
    expect(stderr).toContain('set KAFKA_BOOTSTRAP_SERVERS');
  });
});
