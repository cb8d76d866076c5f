import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS, REPLAY_COUNT_HEADER } from '../../src/naming/headers';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import { dlqReaderGroupName } from '../../src/naming';
import { bootstrapServers, expireBelow, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { runPipeline } from '../helpers/pipeline-with-deadline';

jest.setTimeout(300_000);

/** A scratch project with one topology of two consumers on fresh topics, created as an admin. */
async function lifecycleProject(): Promise<{ project: ScratchProject; consumers: ConsumerModel[] }> {
  const id = randomBytes(3).toString('hex');
  const project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  const consumer = (name: string) => `{ name: '${name}-${id}', topic: { name: 'lc-${id}.${name}', partitions: 3 }, principal: 'User:billing', ladder: ['1m'] }`;
  project.write(
    'topologies/lifecycle.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'lifecycle',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [${consumer('expiry')}, ${consumer('scale')}, ${consumer('scatter')}, ${consumer('race')}],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  if (!result.model) throw new Error(`the lifecycle topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  const consumers = result.model.topologies[0]!.consumers.slice();
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, consumers.flatMap((c) => [
      { topic: c.mainTopic.name, numPartitions: 3, replicationFactor: 1 },
      ...c.tiers.map((t) => ({ topic: t.name, numPartitions: 3, replicationFactor: 1 })),
      { topic: c.dlq.name, numPartitions: 3, replicationFactor: 1 },
      { topic: c.dlqAudit.name, numPartitions: 1, replicationFactor: 1 },
    ]));
  await admin.disconnect();
  return { project, consumers };
}

/** The tools connect as the admin here: these topics are the test's own, outside the example topologies' ACLs. */
const env = () => ({ ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' });

interface DlqWrite {
  partition: number;
  errorClass: string;
  value?: Buffer | string;
  headers?: Record<string, string>;
}

/** Writes DLQ records as the runtime would, in large batches; idempotent, so a retried batch never doubles. */
async function writeDlq(kafka: Kafka, consumer: ConsumerModel, records: readonly DlqWrite[]): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let start = 0; start < records.length; start += 4_000) {
    const messages = records.slice(start, start + 4_000).map((r, i) => ({
      partition: r.partition,
      key: `order-${start + i}`,
      value: r.value ?? `value-${start + i}`,
      headers: {
        [HEADERS.attempt]: '1',
        [HEADERS.originalTopic]: consumer.mainTopic.name,
        [HEADERS.originalPartition]: String(r.partition),
        [HEADERS.originalOffset]: String(start + i),
        [HEADERS.errorClass]: r.errorClass,
        [HEADERS.errorMessage]: `${r.errorClass} in record ${start + i}`,
        ...r.headers,
      },
    }));
    await producer.send({ topic: consumer.dlq.name, acks: -1, messages });
  }
  await producer.disconnect();
}

async function endOffsetTotal(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
}

/** Every record of a topic, read by the admin from the beginning to the current end. */
async function readAll(kafka: Kafka, admin: Admin, topic: string) {
  const expected = await endOffsetTotal(admin, topic);
  const consumer = kafka.consumer({ groupId: `reader-${randomBytes(3).toString('hex')}` });
  const found: { value: string; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    if (expected === 0) resolve();
    consumer
      .run({
        eachMessage: async ({ message }) => {
          found.push({ value: message.value?.toString() ?? '', headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])) });
          if (found.length >= expected) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return found;
}

async function eventuallyTrue(condition: () => boolean, ms = 30_000): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function monitorOf(consumer: ConsumerModel) {
  const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAsAdmin(), consumer.groups.monitor) });
  const snapshot = await monitor.poll();
  return { snapshot, text: await monitor.metrics.registry.metrics() };
}

describe('the DLQ over its whole life, on a real broker', () => {
  let project: ScratchProject;
  let expiry: ConsumerModel;
  let scale: ConsumerModel;
  let scatter: ConsumerModel;
  let race: ConsumerModel;
  let admin: Admin;
  const krt = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, { cwd: project.dir, env: env(), stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    const created = await lifecycleProject();
    project = created.project;
    [expiry, scale, scatter, race] = created.consumers as [ConsumerModel, ConsumerModel, ConsumerModel, ConsumerModel];
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    project?.remove();
  });

  it('counts unhandled records that retention deleted, keeps the gauges on what is left, and the tools carry on past the gap', async () => {
    const kafka = kafkaAsAdmin();
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    await writeDlq(kafka, expiry!, [
      ...Array.from({ length: 10 }, (_, i) => ({ partition: 0, errorClass: 'SchemaError', value: i === 7 ? binary : undefined, headers: i === 8 ? { [REPLAY_COUNT_HEADER]: '2' } : {} })),
      ...Array.from({ length: 5 }, () => ({ partition: 1, errorClass: 'SchemaError' })),
    ]);
    expect(await krt('dlq', 'replay', expiry!.name, '--ids', '0:0', '--by', 'tester')).toMatchObject({ code: 0 });
    expect(await krt('dlq', 'discard', expiry!.name, '--ids', '0:3', '--reason', 'test', '--by', 'tester')).toMatchObject({ code: 0 });

    // Retention deletes partition 0 below offset 6 (0 and 3 were handled: 4 lost) and all of partition 1 (5 lost).
    await expireBelow(admin, expiry!.dlq.name, 0, 6);
    await expireBelow(admin, expiry!.dlq.name, 1, 5);
    const labels = `{consumer="${expiry!.name}",topic="${expiry!.dlq.name}"}`;
    const before = await monitorOf(expiry!);
    expect({ size: before.snapshot.dlqSize, expired: before.snapshot.dlqExpired }).toEqual({ size: 4, expired: 9 });
    expect(before.text).toContain(`kafka_dlq_expired_total${labels} 9`);
    expect(before.text).toContain(`kafka_dlq_oldest_unhandled_timestamp_seconds${labels} `);

    const inspected = await krt('dlq', 'inspect', expiry!.name, '--json');
    const report = JSON.parse(inspected.stdout) as { unhandled: number; expired: { total: number }; records: { id: string; timestamp: string; value: string; valueEncoding: string; replayCount: number }[] };
    expect({ unhandled: report.unhandled, expired: report.expired.total, ids: report.records.map((r) => r.id) }).toEqual({ unhandled: 4, expired: 9, ids: ['0:6', '0:7', '0:8', '0:9'] });
    expect(before.snapshot.oldestUnhandledAt).toBe(Date.parse(report.records[0]!.timestamp));
    expect(report.records[1]).toMatchObject({ value: binary.toString('base64'), valueEncoding: 'base64' });
    expect(report.records[2]).toMatchObject({ valueEncoding: 'utf8', replayCount: 2 });
    expect((await krt('dlq', 'inspect', expiry!.name)).stdout).toContain('expired: retention deleted 9 unhandled records before anyone replayed or discarded them (partition 0: 4, 4 of them below log start 6 not yet in the audit log; partition 1: 5, 5 of them below log start 5 not yet in the audit log)');

    // Replay and discard work on the partition with the gap, and record the gap in the audit log once.
    const replayed = await krt('dlq', 'replay', expiry!.name, '--ids', '0:6,0:8', '--by', 'tester');
    expect({ code: replayed.code, stderr: replayed.stderr.replace(/replayed \d+\/\d+\n/g, '') }).toEqual({ code: 0, stderr: '' });
    expect((await krt('dlq', 'discard', expiry!.name, '--ids', '0:7', '--reason', 'binary garbage', '--by', 'tester')).code).toBe(0);
    const audit = (await readAll(kafka, admin, expiry!.dlqAudit.name)).map((a) => JSON.parse(a.value) as { action: string; partition: number; count?: number; offset?: string; replayCount?: number; belowOffset?: string; expiredTotal?: string });
    // Each command starts with the floors (`handled-below`) it found, those at 0 left out, and each
    // step ends with its partition's: below it, handled or counted as expired (and how many expired).
    expect(audit.map((a) => [a.action, a.partition, a.action === 'handled-below' ? `below ${a.belowOffset}, ${a.expiredTotal} expired` : (a.count ?? a.offset)])).toEqual([
      ['replayed', 0, '0'],
      ['handled-below', 0, 'below 1, 0 expired'],
      ['handled-below', 0, 'below 1, 0 expired'],
      ['discarded', 0, '3'],
      ['handled-below', 0, 'below 1, 0 expired'],
      ['handled-below', 0, 'below 1, 0 expired'],
      ['expired', 0, 4],
      ['replayed', 0, '6'],
      ['replayed', 0, '8'],
      ['handled-below', 0, 'below 7, 4 expired'],
      ['handled-below', 0, 'below 7, 4 expired'],
      ['discarded', 0, '7'],
      ['handled-below', 0, 'below 9, 4 expired'],
    ]);
    // Replayed through the first tier, the consumer's own route.
    const tier = await readAll(kafka, admin, expiry!.tiers[0]!.name);
    expect(tier.map((m) => [m.value, m.headers[REPLAY_COUNT_HEADER]])).toEqual(expect.arrayContaining([['value-0', '1'], ['value-6', '1'], ['value-8', '3']]));

    // The size is what is left; the expired total stays right after the gap was passed, and after a monitor restart.
    const after = await monitorOf(expiry!);
    expect({ size: after.snapshot.dlqSize, expired: after.snapshot.dlqExpired }).toEqual({ size: 1, expired: 9 });
    expect(after.text).toContain(`kafka_dlq_expired_total${labels} 9`);
    expect((await krt('dlq', 'inspect', expiry!.name, '--json')).stdout).toContain('"id": "0:9"');
  });

  it('inspects a DLQ of 100,000 records of four interleaved error classes, replays one class, and a rerun republishes nothing', async () => {
    const classes = ['TimeoutError', 'SchemaError', 'TypeError', 'ConflictError'];
    // Record i goes to partition i % 3, and each partition's classes cycle record by record.
    const records = Array.from({ length: 100_000 }, (_, i) => ({ partition: i % 3, errorClass: classes[Math.floor(i / 3) % 4]! }));
    await writeDlq(kafkaAsAdmin(), scale!, records);
    const inspected = await krt('dlq', 'inspect', scale!.name);
    expect(inspected.stdout).toContain(`${scale!.dlq.name} (consumer ${scale!.name}): 100000 unhandled records`);
    for (const c of classes) {
      const count = records.filter((r) => r.errorClass === c).length;
      expect(inspected.stdout).toContain(`  ${c}  from ${scale!.mainTopic.name}: ${count}, `);
    }
    const schemaErrors = records.filter((r) => r.errorClass === 'SchemaError').length;

    const route = scale!.tiers[0]!.name;
    const mainBefore = await endOffsetTotal(admin, route);
    const replay = () => krt('dlq', 'replay', scale!.name, '--error-class', 'SchemaError', '--limit', '100000', '--rate', '100000', '--by', 'tester');
    const first = await replay();
    expect({ code: first.code, stdout: first.stdout.slice(-300), stderr: first.stderr.replace(/replayed \d+\/\d+\n/g, '') }).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
    const replayedCount = Number(/replayed (\d+) records/.exec(first.stdout)?.[1]);
    expect(replayedCount).toBe(schemaErrors);
    expect(await endOffsetTotal(admin, route)).toBe(mainBefore + replayedCount);

    const rerun = await replay();
    expect(rerun.stdout).toContain(`replaying 0 of ${100_000 - replayedCount} unhandled records`);
    expect(await endOffsetTotal(admin, route) - (mainBefore + replayedCount)).toBe(0);
    expect((await monitorOf(scale!)).snapshot.dlqSize).toBe(100_000 - replayedCount);
  });

  it('refuses, before publishing anything, a replay whose handling could not be recorded, and says how many records fit', async () => {
    let seed = 7;
    // xorshift32: one record in three of a class, with no pattern deflate could shrink.
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const records = Array.from({ length: 40_000 }, () => ({ partition: 0, errorClass: random() < 1 / 3 ? 'SchemaError' : 'TimeoutError' }));
    await writeDlq(kafkaAsAdmin(), scatter!, records);
    const replay = (limit: number) => krt('dlq', 'replay', scatter!.name, '--error-class', 'SchemaError', '--limit', String(limit), '--rate', '100000', '--by', 'tester');
    const route = scatter!.tiers[0]!.name;
    const mainBefore = await endOffsetTotal(admin, route);

    const refused = await replay(100_000);
    const fits = Number(/run again with --limit (\d+)/.exec(refused.stderr)?.[1]);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('Nothing was published');
    expect(fits).toBeGreaterThan(1000);
    expect(fits).toBeLessThan(records.filter((r) => r.errorClass === 'SchemaError').length);
    expect(await endOffsetTotal(admin, route)).toBe(mainBefore);

    expect((await replay(fits)).code).toBe(0);
    expect(await endOffsetTotal(admin, route)).toBe(mainBefore + fits);

    // Nothing more fits: the advice names a command that works, and after it more fits again.
    const full = await replay(1);
    expect({ code: full.code, stderr: full.stderr.trim() }).toEqual({
      code: 1,
      stderr: expect.stringContaining('first replay or discard the oldest unhandled records of partition 0 (inspect lists them first; --all takes them in that order)'),
    });
    expect(full.stderr).not.toContain('--limit 0');
    const oldest = await krt('dlq', 'replay', scatter!.name, '--all', '--limit', '100', '--rate', '100000', '--by', 'tester');
    expect(oldest.code).toBe(0);
    expect((await replay(1)).code).toBe(0);
  });

  it('keeps the handled state when retention passes the replay group offset between a session reading the offsets and its first fetch', async () => {
    const kafka = kafkaAsAdmin();
    await writeDlq(kafka, race!, Array.from({ length: 1000 }, () => ({ partition: 0, errorClass: 'SchemaError' })));
    const first = await DlqSession.open(kafka, race!);
    await discardRecords(kafka, first, first.records.filter((r) => r.offset >= 200n && r.offset < 900n), { reason: 'superseded', by: 'tester' });
    await first.close();

    // Retention deletes records 0-49 once the session has read the offsets, before its first fetch.
    let moved = false;
    const racing = new Proxy(kafka, {
      get(target, property, receiver) {
        if (property !== 'consumer') return Reflect.get(target, property, receiver);
        return (config: Parameters<Kafka['consumer']>[0]) => {
          const client = target.consumer(config);
          const run = client.run.bind(client);
          client.run = async (options) => {
            if (!moved) {
              moved = true;
              await expireBelow(admin, race!.dlq.name, 0, 50);
            }
            return run(options);
          };
          return client;
        };
      },
    });
    const inspect = await DlqSession.open(racing, race!);
    await inspect.close();
    expect({ moved, read: inspect.records.length }).toEqual({ moved: true, read: 250 });

    // The client did reset and commit, as kafkajs does, but in the reader group, never in the replay group.
    const [reader] = await admin.fetchOffsets({ groupId: dlqReaderGroupName(race!.groups.replay), topics: [race!.dlq.name] });
    expect(reader!.partitions.find((p) => p.partition === 0)).toMatchObject({ metadata: expect.not.stringContaining('krt-handled') });
    const next = await DlqSession.open(kafka, race!);
    await next.close();
    expect(next.records.length).toBe(150 + 100);
    expect(next.records.filter((r) => r.offset >= 200n && r.offset < 900n)).toEqual([]);
  });

  it('kafkajs itself commits the reset offset without metadata when its fetch position is below the log start', async () => {
    const kafka = kafkaAsAdmin();
    const group = `reset-${randomBytes(3).toString('hex')}`;
    const topic = race!.dlq.name; // its partition 0 starts at 50 now
    const member = kafka.consumer({ groupId: group });
    await member.connect();
    await member.subscribe({ topics: [topic], fromBeginning: true });
    let joined: () => void = () => {};
    const running = new Promise<void>((resolve) => (joined = resolve));
    let sought = false;
    let fetched = false;
    member.on(member.events.GROUP_JOIN, () => joined());
    void member.run({ autoCommit: false, eachBatch: async ({ batch }) => void (fetched ||= sought && batch.partition === 0) });
    await running;
    await member.commitOffsets([{ topic, partition: 0, offset: '10', metadata: 'state we must keep' }]);
    member.seek({ topic, partition: 0, offset: '10' });
    sought = true;
    let metadata: string | null = 'state we must keep';
    await eventuallyTrue(() => fetched);
    for (const started = Date.now(); metadata === 'state we must keep' && Date.now() - started < 30_000; ) {
      const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      metadata = offsets!.partitions.find((p) => p.partition === 0)!.metadata;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await member.disconnect();
    expect(metadata ?? '').not.toContain('state we must keep');
  });

  it('inspect | head -1 exits quietly and leaves the replay group at once', async () => {
    // The CLI from source, so the test never runs a stale build.
    const krtFromSource = `${path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti')} ${path.join(REPO_ROOT, 'src', 'cli', 'main.ts')}`;
    // Past the deadline the run says what krt was waiting on (CI once saw it outlive the test's 300 s).
    const { code, stderr, stdout, hung } = await runPipeline(`${krtFromSource} dlq inspect ${scale!.name} | head -1`, { cwd: project.dir, env: env(), deadlineMs: 120_000 });
    expect({ code, stderr, hung }).toEqual({ code: 0, stderr: '', hung: undefined });
    expect(stdout).toMatch(/^\S+ \(consumer .+\), unhandled records as read/);
    const [group] = (await admin.describeGroups([scale!.groups.replay])).groups;
    expect(group!.members).toEqual([]);
  });
});
