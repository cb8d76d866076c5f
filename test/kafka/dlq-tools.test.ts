import { randomBytes } from 'node:crypto';
import type { Admin, Consumer } from 'kafkajs';
import { runCli } from '../../src/cli/program';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS, REPLAY_COUNT_HEADER } from '../../src/naming/headers';
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

interface InspectedRecord { id: string; key: string; value: string; errorClass: string; originalTopic: string; originalPartition: number; originalOffset: string; attempt: number }
async function ours(): Promise<InspectedRecord[]> {
  const { code, stdout, stderr } = await krt('dlq', 'inspect', 'billing-order-confirmed', '--json');
  if (code !== 0) throw new Error(`inspect failed: ${stderr}`);
  return (JSON.parse(stdout).records as InspectedRecord[]).filter((r) => r.value?.startsWith(run));
}

/** Our records with these numbers, in that order. */
async function numbered(...n: number[]): Promise<InspectedRecord[]> {
  const records = await ours();
  return n.map((i) => records.find((r) => r.value === `${run}-${i}`)!);
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
  const found: { key: string; value: string; partition: number; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message, partition }) => {
      const value = message.value?.toString() ?? '';
      if (predicate(value)) {
        found.push({ key: message.key?.toString() ?? '', value, partition, headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])) });
      }
    },
  });
  await eventually(`${count} records in ${topic}`, () => (found.length >= count ? true : undefined), 60_000);
  await consumer.disconnect();
  return found;
}

const TIER = 'orders.confirmed.retry.1m';

/** Whether an audit entry is about one of these DLQ records: partition and offset both, as other suites write entries at the same offsets of other partitions. */
function auditsOneOf(ids: readonly string[]): (value: string) => boolean {
  return (value) => {
    const entry = JSON.parse(value) as { partition?: number; offset?: string };
    return ids.includes(`${entry.partition}:${entry.offset}`);
  };
}

describe('krt dlq on a real broker, as the replay principal', () => {
  let billing: ConsumerModel;
  let admin: Admin;
  let billingConsumer: ReturnType<typeof createRetryingConsumer> | undefined;
  let secondGroup: Consumer | undefined;
  const secondSaw: string[] = [];
  const processed = new Map<string, number>();

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    // Three records the billing handler cannot parse: the runtime dead-letters them.
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: billing.mainTopic.name, acks: -1, messages: [1, 2, 3, 4].map((i) => ({ key: `order-${i}`, value: `${run}-${i}` })) });
    await producer.disconnect();
    const events: string[] = [];
    const consumer = createRetryingConsumer(consumerDescriptor(billing), {
      kafka: kafkajsPort(kafkaAs('billing')),
      handler: async (record) => {
        if (record.message.value?.toString().startsWith(run)) throw new SyntaxError(`Unexpected token in ${record.message.value.toString()}`);
      },
      onEvent: (event) => void events.push(JSON.stringify(event)),
    });
    await consumer.start();
    await eventually('the four records in the DLQ', async () => ((await ours()).length === 4 ? true : undefined), 90_000, async () => {
      const [group] = (await admin.describeGroups([billing.groups.main])).groups;
      return `inspect lists ${(await ours()).length}; the main group is ${group?.state} with members ${JSON.stringify(group?.members.map((m) => m.clientId))}; the consumer's last events: ${events.slice(-10).join(' ')}`;
    });
    await consumer.stop();
  });
  afterAll(async () => {
    await billingConsumer?.stop();
    await secondGroup?.disconnect();
    await admin.disconnect();
  });

  it('inspect lists them with their headers decoded, grouped by error class and original topic', async () => {
    const records = await ours();
    expect(records.map((r) => [r.key, r.errorClass, r.originalTopic, r.attempt]).sort()).toEqual([1, 2, 3, 4].map((i) => [`order-${i}`, 'SyntaxError', 'orders.confirmed', 1]));
    const { stdout } = await krt('dlq', 'inspect', 'billing-order-confirmed');
    // Each record as it is read, then the count and the groups, tallied along the way.
    expect(stdout).toMatch(/^orders\.confirmed\.dlq \(consumer billing-order-confirmed\), unhandled records as read/);
    expect(stdout).toMatch(/\norders\.confirmed\.dlq \(consumer billing-order-confirmed\): \d+ unhandled records\n/);
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
    const before = await endOffsets(admin, TIER);
    const { code, stdout } = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', first!.id, '--dry-run');
    expect(code).toBe(0);
    expect(stdout).toContain(`would replay 1 of`);
    expect(stdout).toContain(`through ${TIER}, billing-order-confirmed's first retry tier, due at once: only its own group reads it`);
    expect(stdout).toContain('dry run: nothing was published or committed');
    expect(await endOffsets(admin, TIER)).toBe(before);
    expect((await ours()).map((r) => r.id)).toContain(first!.id);
  });

  it('replay sends records to this consumer only, through its first tier: a second group on the main topic sees nothing, the consumer processes each once', async () => {
    const [first, second] = await numbered(1, 2);
    // A second group reading the main topic from now on, as analytics or search indexing would.
    secondGroup = kafkaAsAdmin().consumer({ groupId: `second-${run}` });
    await secondGroup.connect();
    await secondGroup.subscribe({ topics: [billing.mainTopic.name], fromBeginning: false });
    const joined = new Promise<void>((resolve) => secondGroup!.on(secondGroup!.events.GROUP_JOIN, () => resolve()));
    void secondGroup.run({ eachMessage: async ({ message }) => void (message.value?.toString().startsWith(run) && secondSaw.push(message.value.toString())) });
    await joined;
    // The consumer, fixed: it now handles every record, and counts ours.
    billingConsumer = createRetryingConsumer(consumerDescriptor(billing), {
      kafka: kafkajsPort(kafkaAs('billing')),
      handler: async (record) => {
        const value = record.message.value?.toString() ?? '';
        if (value.startsWith(run)) processed.set(value, (processed.get(value) ?? 0) + 1);
      },
    });
    await billingConsumer.start();

    const { code, stdout, stderr } = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', `${first!.id},${second!.id}`, '--rate', '5', '--by', 'tester');
    expect({ code, stderr: stderr.replace(/replayed \d+\/\d+\n/g, '') }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`replayed 2 records to ${TIER}; recorded in orders.confirmed.dlq.audit as done by tester`);
    const replayed = await recordsOf(TIER, (v) => v === first!.value || v === second!.value, 2);
    const expected = (r: InspectedRecord) => [r.key, r.value, '2', `orders.confirmed.dlq/${r.id}`, 'orders.confirmed', String(r.originalPartition), r.originalOffset, '1'];
    expect(
      replayed
        .map((r) => [r.key, r.value, r.headers[HEADERS.attempt], r.headers[HEADERS.replayedFromDlq], r.headers[HEADERS.originalTopic], r.headers[HEADERS.originalPartition], r.headers[HEADERS.originalOffset], r.headers[REPLAY_COUNT_HEADER]])
        .sort(),
    ).toEqual([expected(first!), expected(second!)].sort());
    expect(replayed.map((r) => r.partition).sort()).toEqual([Number(first!.originalPartition), Number(second!.originalPartition)].sort());
    const audited = await recordsOf(billing.dlqAudit.name, auditsOneOf([first!.id, second!.id]), 2);
    expect(audited.map((a) => JSON.parse(a.value)).map((e: { action: string; by: string }) => [e.action, e.by])).toEqual([['replayed', 'tester'], ['replayed', 'tester']]);

    await eventually('the consumer processed both', async () => (processed.get(first!.value) && processed.get(second!.value) ? true : undefined), 60_000);
    // Time for a duplicate or a stray copy to show up, were there one.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect({ processed: Object.fromEntries(processed), secondSaw }).toEqual({ processed: { [first!.value]: 1, [second!.value]: 1 }, secondSaw: [] });
    expect((await ours()).map((r) => r.id).sort()).toHaveLength(2);
    const [seen, g] = await Promise.all([inspectTotals(), gauges(billing)]);
    expect({ size: g.size, oldest: g.oldest }).toEqual({ size: seen.unhandled, oldest: seen.oldest });
  });

  it('replay --to main-topic names the other groups reading it, publishes nothing without --yes, and reaches every group with it', async () => {
    const [fourth] = (await numbered(4)) as [InspectedRecord];
    const before = await endOffsets(admin, billing.mainTopic.name);
    const dry = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', fourth.id, '--to', 'main-topic', '--dry-run');
    expect(dry.stdout).toContain('to orders.confirmed, the main topic: every group that reads it processes them again');
    // analytics-orders reads orders.confirmed in topologies/; the broker shows no other group to the replay principal.
    expect(dry.stdout).toContain('other groups reading orders.confirmed: analytics-orders (from topologies/ and the groups the replay principal may describe)');
    const refused = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', fourth.id, '--to', 'main-topic');
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('Run again with --yes if they all should, or without --to to replay to billing-order-confirmed only') });
    expect(await endOffsets(admin, billing.mainTopic.name)).toBe(before);

    const done = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', fourth.id, '--to', 'main-topic', '--yes', '--by', 'tester');
    expect(done.code).toBe(0);
    await eventually('the second group got it', async () => (secondSaw.includes(fourth.value) ? true : undefined), 60_000);
    await eventually('the consumer processed it', async () => (processed.get(fourth.value) === 1 ? true : undefined), 60_000);
  });

  it('discard needs a reason and a name, records both in the audit log, and marks the record handled', async () => {
    const [third] = await numbered(3);
    expect((await krt('dlq', 'discard', 'billing-order-confirmed', '--ids', third!.id, '--by', 'tester')).code).toBe(2);
    const { code, stdout } = await krt('dlq', 'discard', 'billing-order-confirmed', '--ids', third!.id, '--reason', 'test data, never valid', '--by', 'tester');
    expect(code).toBe(0);
    expect(stdout).toContain(`discarded 1 record of orders.confirmed.dlq (${third!.id})`);
    const [entry] = await recordsOf(billing.dlqAudit.name, (v) => v.includes('"action":"discarded"') && auditsOneOf([third!.id])(v), 1);
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
