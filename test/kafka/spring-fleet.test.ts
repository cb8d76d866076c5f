import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ConsumerModel } from '../../src/model/types';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { RawHeaders } from '../../src/runtime/headers';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { decodeSpringRetryTopicHeaders } from '../../src/runtime/spring-headers';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

/**
 * A mixed fleet on the test broker: a real Spring Kafka application (test/spring:
 * spring-kafka from Maven Central, a plain application context) on one side, the runtime
 * and `krt dlq` on the other, sharing topics named as Spring names them. Side A: Spring
 * writes (its @RetryableTopic and its DeadLetterPublishingRecoverer), we read. Side B: we
 * write (tiers and DLQ, in both Spring styles), Spring's retry listeners, back-off manager
 * and @DltHandler read. Every original-* must name the main-topic record.
 */
jest.setTimeout(300_000);

const run = randomBytes(3).toString('hex');
/** How long a step of the Spring application may take: a JVM start and a first group join on a busy 2-core machine. */
const SPRING_WAIT_MS = 120_000;
const SPRING_GROUP = `spring-${run}`;
/**
 * Main-topic records are stamped with this time, so every original timestamp can be told
 * from the time a hop was written. Recent: the broker's retention would delete older ones.
 */
const MAIN_TS = Date.now() - 60_000;

/** One consumer per scenario, each on topics of its own; `naming: 'spring'` and a 1 s, 2 s ladder, as Spring's back-off 1000 ms x 2 names them. */
const CONSUMERS = {
  tierTakeover: { headers: 'x+spring-retry-topic' },
  springDlt: { headers: 'x+spring-retry-topic' },
  recovererDlt: { headers: 'x+spring' },
  springRetries: { headers: 'x+spring-retry-topic' },
  springReadsDlq: { headers: 'x+spring' },
} as const;
type Scenario = keyof typeof CONSUMERS;
const nameOf = (s: Scenario) => `sf-${s.toLowerCase()}-${run}`;

const TOPOLOGY = `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: 'spring-fleet',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com/kafka',
  naming: 'spring',
  consumers: [
${Object.entries(CONSUMERS)
  .map(([s, c]) => `    { name: '${nameOf(s as Scenario)}', topic: { name: '${nameOf(s as Scenario)}', partitions: 2 }, principal: 'User:${ADMIN_USER}', ladder: ['1s', '2s'], headers: '${c.headers}', inPlace: { attempts: 1 } },`)
  .join('\n')}
  ],
});
`;

let project: ScratchProject;
let models: Map<Scenario, ConsumerModel>;
let springApp: string;
const running: ChildProcess[] = [];
const consumers: RetryingConsumer[] = [];

beforeAll(async () => {
  // Fails loudly, with Maven's output, when the application cannot be built.
  springApp = execFileSync('bash', [path.join(REPO_ROOT, 'scripts/tools/spring-app.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
  project = new ScratchProject(false);
  execFileSync('mkdir', ['-p', project.path('topologies')]);
  project.write('topologies/spring-fleet.ts', TOPOLOGY);
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  if (!result.model) throw new Error(`the spring-fleet topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  const all = result.model.topologies[0]!.consumers;
  models = new Map((Object.keys(CONSUMERS) as Scenario[]).map((s) => [s, all.find((c) => c.name === nameOf(s))!]));
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, all.flatMap((c) => [c.mainTopic, ...c.tiers, c.dlq, c.dlqAudit]).map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })));
  await admin.disconnect();
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.stop()));
  await Promise.all(running.splice(0).map(stopJava));
});

afterAll(() => project?.remove());

interface SpringLine {
  readonly event: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
  readonly receivedAt: number;
  readonly [header: string]: unknown;
}

/** Starts the Spring application in a mode on a consumer's main topic; resolves once its containers are started. */
async function startSpring(mode: string, consumer: ConsumerModel): Promise<{ lines: SpringLine[] }> {
  const child = spawn('java', ['-cp', `${springApp}/classes:${springApp}/libs/*`, 'krt.spring.SpringFleetApp'], {
    env: { ...process.env, KRT_BOOTSTRAP: bootstrapServers(), KRT_USER: ADMIN_USER, KRT_PASSWORD: passwordOf(ADMIN_USER), KRT_TOPIC: consumer.mainTopic.name, KRT_GROUP: SPRING_GROUP, KRT_MODE: mode },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const lines: SpringLine[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
      const line = stdout.slice(0, nl).trim();
      stdout = stdout.slice(nl + 1);
      if (line.startsWith('{')) lines.push(JSON.parse(line) as SpringLine);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
  // What Spring printed and logged, kept for a failure's post-mortem (the JVM's log is long).
  child.once('exit', () => writeFileSync(path.join(os.tmpdir(), `krt-spring-fleet-${mode}-${run}.log`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`));
  await eventually(`the Spring application (${mode}) to start`, () => {
    if (child.exitCode !== null) throw new Error(`the Spring application exited with ${child.exitCode}:\n${stderr}`);
    return lines.find((l) => l.event === 'started');
  }, SPRING_WAIT_MS);
  return { lines };
}

async function stopJava(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Writes values to partition `partition` of a main topic, stamped MAIN_TS, as the admin with acks=-1. */
async function produce(consumer: ConsumerModel, partition: number, values: string[]): Promise<void> {
  // Topics created a moment ago may have no leader known yet: retried, as produceAsAdmin does.
  const producer = kafkaAsAdmin().producer({ retry: { retries: 10, maxRetryTime: 5_000 } });
  await producer.connect();
  await producer.send({ topic: consumer.mainTopic.name, acks: -1, messages: values.map((value) => ({ key: `key-${value}`, value, partition, timestamp: String(MAIN_TS) })) });
  await producer.disconnect();
}

async function recordCount(topic: string): Promise<number> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Every record of a topic with its headers, read from the start by a group of its own. */
async function readAll(topic: string, count: number): Promise<{ partition: number; offset: string; value: string; headers: RawHeaders }[]> {
  const consumer = kafkaAsAdmin().consumer({ groupId: `sf-reader-${randomBytes(4).toString('hex')}` });
  const out: { partition: number; offset: string; value: string; headers: RawHeaders }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => void out.push({ partition, offset: message.offset, value: message.value!.toString(), headers: message.headers as RawHeaders }) });
  await eventually(`${count} records on ${topic}`, () => (out.length >= count ? true : undefined), SPRING_WAIT_MS);
  await consumer.disconnect();
  return out;
}

/** Our runtime on a consumer, as the admin, with the kafkajs client; `handler` decides per record. */
async function startRuntime(consumer: ConsumerModel, handler: (topic: string, value: string) => void): Promise<void> {
  const retrying = createRetryingConsumer(consumerDescriptor(consumer), {
    kafka: kafkajsPort(kafkaAsAdmin()),
    handler: async (record) => handler(record.topic, record.message.value!.toString()),
  });
  consumers.push(retrying);
  await retrying.start();
}

const http503 = () => Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });

async function krt(...args: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' };
  const code = await runCli(args, { cwd: project.dir, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  if (code !== 0) throw new Error(`krt ${args.join(' ')} failed (${code}): ${stderr}`);
  return stdout;
}

interface Inspected { readonly id: string; readonly value: string; readonly errorClass: string; readonly errorMessage: string; readonly originalTopic: string; readonly originalPartition: number; readonly originalOffset: string; readonly originalTimestamp: string }
const inspect = async (consumer: ConsumerModel) => (JSON.parse(await krt('dlq', 'inspect', consumer.name, '--json')) as { records: Inspected[] }).records;
const byValue = <T extends { value: string }>(records: readonly T[]) => [...records].sort((a, b) => (a.value < b.value ? -1 : 1));

describe('side A: Spring writes, the runtime and krt dlq read', () => {
  it("takes over records Spring's @RetryableTopic left on its -retry-1000 topic: every original-* names the main record, through our second tier to the DLQ", async () => {
    const c = models.get('tierTakeover')!;
    await produce(c, 1, ['ok-0', 'fail-1', 'fail-2']);
    const writer = await startSpring('retryable-main', c);
    await eventually('Spring to put two records on its first retry topic', async () => ((await recordCount(c.tiers[0]!.name)) >= 2 ? true : undefined), SPRING_WAIT_MS);
    await stopJava(running.pop()!);
    expect(writer.lines.filter((l) => l.event === 'received').map((l) => l.value)).toEqual(['ok-0', 'fail-1', 'fail-2']);

    // The Node service of the fleet takes over: the main records are fine now (its own group
    // reads them again), the two Spring left on its retry topic still fail.
    await startRuntime(c, (topic) => {
      if (topic !== c.mainTopic.name) throw http503();
    });
    const dead = byValue(await readAll(c.dlq.name, 2));
    const spring = (r: (typeof dead)[number]) => decodeSpringRetryTopicHeaders(r.headers);
    expect(dead.map((r) => [r.value, r.partition, spring(r).originalOffset, spring(r).originalTimestamp, spring(r).consumerGroup])).toEqual([
      ['fail-1', 1, '1', MAIN_TS, SPRING_GROUP],
      ['fail-2', 1, '2', MAIN_TS, SPRING_GROUP],
    ]);
    const inspected = byValue(await inspect(c));
    expect(inspected.map((r) => [r.value, r.originalTopic, r.originalPartition, r.originalOffset, r.originalTimestamp, r.errorClass])).toEqual([
      ['fail-1', c.mainTopic.name, 1, '1', new Date(MAIN_TS).toISOString(), 'HTTPError'],
      ['fail-2', c.mainTopic.name, 1, '2', new Date(MAIN_TS).toISOString(), 'HTTPError'],
    ]);
  });

  it("krt dlq inspect and replay --dry-run read DLTs written by Spring alone, @RetryableTopic's and the DeadLetterPublishingRecoverer's", async () => {
    const retryable = models.get('springDlt')!;
    const recoverer = models.get('recovererDlt')!;
    await produce(retryable, 1, ['ok-0', 'fail-1']);
    await produce(recoverer, 1, ['ok-0', 'fail-1']);
    const [a, b] = await Promise.all([startSpring('retryable-all', retryable), startSpring('recoverer', recoverer)]);
    await eventually("Spring's @DltHandler to receive the record", () => a.lines.find((l) => l.event === 'dlt'), SPRING_WAIT_MS);
    await eventually('the recoverer to dead-letter the record', async () => ((await recordCount(recoverer.dlq.name)) >= 1 ? true : undefined), SPRING_WAIT_MS);
    expect(b.lines.filter((l) => l.event === 'received').map((l) => l.value)).toEqual(['ok-0', 'fail-1']);
    // Spring's own path: main, its two retry topics after their back-offs, then the DLT.
    expect(a.lines.filter((l) => l.value === 'fail-1').map((l) => l.topic)).toEqual([retryable.mainTopic.name, retryable.tiers[0]!.name, retryable.tiers[1]!.name, retryable.dlq.name]);

    for (const c of [retryable, recoverer]) {
      const [record] = await inspect(c);
      expect(record).toMatchObject({ value: 'fail-1', originalTopic: c.mainTopic.name, originalPartition: 1, originalOffset: '1', originalTimestamp: new Date(MAIN_TS).toISOString(), errorClass: 'java.lang.IllegalStateException' });
      expect(record!.errorMessage).toContain('boom fail-1');
      const groups = await krt('dlq', 'inspect', c.name);
      expect(groups).toContain('java.lang.IllegalStateException');
      expect(groups).not.toContain('(unknown)');
      const plan = await krt('dlq', 'replay', c.name, '--all', '--dry-run');
      expect(plan).toContain(`-> ${c.tiers[0]!.name}[1]`);
    }
  });
});

describe('side B: the runtime writes, Spring reads', () => {
  it("Spring's retry listeners, back-off manager and @DltHandler take the tier records we wrote (x+spring-retry-topic) on to its DLT, naming the main record and our main group", async () => {
    const c = models.get('springRetries')!;
    // We fail the main record; Spring's group alone works its retry topics (ours reads them too and lets them be).
    await startRuntime(c, (topic, value) => {
      if (topic === c.mainTopic.name && value.startsWith('fail')) throw http503();
    });
    await produce(c, 1, ['ok-0', 'fail-1']);
    const spring = await startSpring('retryable-retries', c);
    const dlt = await eventually("Spring's @DltHandler to receive the record", () => spring.lines.find((l) => l.event === 'dlt'), SPRING_WAIT_MS);
    const hops = spring.lines.filter((l) => l.event === 'received');
    expect(hops.map((l) => [l.topic, l.retryAttempts])).toEqual([
      [c.tiers[0]!.name, 2],
      [c.tiers[1]!.name, 3],
    ]);
    // Spring's back-off manager waited for the due time we wrote in retry_topic-backoff-timestamp.
    expect(hops[0]!.receivedAt).toBeGreaterThanOrEqual(hops[0]!.retryBackoffTimestamp as number);
    expect(dlt).toMatchObject({ topic: c.dlq.name, partition: 1, value: 'fail-1', originalTopic: c.mainTopic.name, originalPartition: 1, originalOffset: 1, originalTimestamp: MAIN_TS, retryOriginalTimestamp: MAIN_TS, dltOriginalConsumerGroup: c.groups.main, xOriginalOffset: '1' });
  });

  it('a Spring reader of the DLT decodes the kafka_dlt-* headers we wrote (x+spring) after our two tiers as the main record', async () => {
    const c = models.get('springReadsDlq')!;
    await startRuntime(c, (_topic, value) => {
      if (value.startsWith('fail')) throw http503();
    });
    await produce(c, 1, ['ok-0', 'fail-1']);
    const spring = await startSpring('dlt-reader', c);
    const dlt = await eventually('the Spring reader to receive the DLQ record', () => spring.lines.find((l) => l.event === 'dlt'), SPRING_WAIT_MS);
    expect([dlt.value, dlt.dltOriginalTopic, dlt.dltOriginalPartition, dlt.dltOriginalOffset, dlt.dltOriginalTimestamp, dlt.dltOriginalConsumerGroup, dlt.dltExceptionFqcn, dlt.dltExceptionMessage]).toEqual([
      'fail-1', c.mainTopic.name, 1, 1, MAIN_TS, c.groups.retry, 'HTTPError', 'payment-svc 503',
    ]);
  });
});
