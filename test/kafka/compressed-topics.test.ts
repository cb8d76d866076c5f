/**
 * Topics a broker compresses: an operator's `compression.type` (broker-wide or per topic)
 * has the broker recompress every batch it appends, whatever the producer sent. kafkajs
 * decodes gzip only, so the DLQ tools (kafkajs) and a kafkajs service met records they could
 * not read. The Confluent client and @platformatic/kafka (Node 24) read zstd, lz4 and snappy.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, createTopicsOf, kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { CLIENTS, eachClient } from './clients';

jest.setTimeout(180_000);

/** Sets a topic's compression.type, as an operator does: the broker recompresses what it appends from then on. */
async function compressTopic(topic: string, codec: 'zstd' | 'lz4' | 'snappy'): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: 'compression.type', value: codec }] }] });
    // The broker applies a topic's new config a moment after it answered: records written before are not recompressed.
    await eventually(`${topic} compressed with ${codec}`, async () => {
      const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic, configNames: ['compression.type'] }] });
      return resources[0]?.configEntries.some((e) => e.configName === 'compression.type' && e.configValue === codec) ? true : undefined;
    });
  } finally {
    await admin.disconnect();
  }
}

/** A scratch project with one consumer on fresh topics, created as an admin. */
async function oneConsumerProject(): Promise<{ project: ScratchProject; consumer: ConsumerModel }> {
  const id = randomBytes(3).toString('hex');
  const project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/compressed.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'compressed',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: 'zipped-${id}', topic: { name: 'zip-${id}.main', partitions: 2 }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  if (!result.model) throw new Error(`the test topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  const consumer = result.model.topologies[0]!.consumers[0]!;
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [
    { topic: consumer.mainTopic.name, numPartitions: 2, replicationFactor: 1 },
    ...consumer.tiers.map((t) => ({ topic: t.name, numPartitions: 2, replicationFactor: 1 })),
    { topic: consumer.dlq.name, numPartitions: 2, replicationFactor: 1 },
    { topic: consumer.dlqAudit.name, numPartitions: 1, replicationFactor: 1 },
  ]);
  await admin.disconnect();
  return { project, consumer };
}

async function deadLetters(consumer: ConsumerModel, count: number): Promise<void> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  await producer.send({
    topic: consumer.dlq.name,
    acks: -1,
    messages: Array.from({ length: count }, (_, i) => ({
      key: `order-${i}`,
      value: `dead-${i}`,
      partition: i % 2,
      headers: {
        [HEADERS.attempt]: '1',
        [HEADERS.originalTopic]: consumer.mainTopic.name,
        [HEADERS.originalPartition]: String(i % 2),
        [HEADERS.originalOffset]: String(i),
        [HEADERS.errorClass]: 'OrderValidationError',
        [HEADERS.errorMessage]: `bad order ${i}`,
      },
    })),
  });
  await producer.disconnect();
}

async function krt(project: ScratchProject, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' };
  const code = await runCli(args, { cwd: project.dir, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('the DLQ tools on a DLQ whose topic compresses its records', () => {
  let project: ScratchProject | undefined;
  afterEach(() => project?.remove());

  it('krt dlq inspect and replay read a DLQ the broker compresses with zstd', async () => {
    const made = await oneConsumerProject();
    project = made.project;
    await compressTopic(made.consumer.dlq.name, 'zstd');
    await deadLetters(made.consumer, 4);

    const inspect = await krt(project, 'dlq', 'inspect', made.consumer.name, '--json');
    expect(inspect.stderr).toBe('');
    expect(inspect.code).toBe(0);
    expect((JSON.parse(inspect.stdout) as { records: { value: string }[] }).records.map((r) => r.value).sort()).toEqual(['dead-0', 'dead-1', 'dead-2', 'dead-3']);

    const replay = await krt(project, 'dlq', 'replay', made.consumer.name, '--all', '--by', 'test');
    expect(replay.stderr).not.toMatch(/krt:/);
    expect(replay.code).toBe(0);
    const after = await krt(project, 'dlq', 'inspect', made.consumer.name, '--json');
    expect((JSON.parse(after.stdout) as { records: unknown[] }).records).toEqual([]);
  });

  it('krt dlq inspect names the codec it cannot read and where to read why when the DLQ is lz4-compressed', async () => {
    const made = await oneConsumerProject();
    project = made.project;
    await compressTopic(made.consumer.dlq.name, 'lz4');
    await deadLetters(made.consumer, 2);

    const inspect = await krt(project, 'dlq', 'inspect', made.consumer.name, '--json');
    expect(inspect.code).toBe(1);
    expect(inspect.stderr).toMatch(/lz4-compressed records .*compression\.type.*Compressed topics" in docs\/dlq-tools\.md/);
  });
});

describe('a kafkajs service on a topic whose records it cannot decode', () => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    jest.restoreAllMocks();
  });

  it('says with each crash which codec the records need and where the docs say how to register it', async () => {
    const d = testDescriptor('lz4-main', [1]);
    await createTopicsOf(d, 1);
    await compressTopic(d.mainTopic, 'lz4');
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: d.mainTopic, acks: -1, messages: [{ key: 'k', value: 'v', partition: 0 }] });
    await producer.disconnect();

    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (String(chunk).includes('kafka-retry-topology')) said.push(String(chunk));
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    });
    consumer = createRetryingConsumer(d, { kafka: kafkajsPort(kafkaAsAdmin()), handler: async () => undefined });
    await consumer.start();
    const line = await eventually('a crash reported', () => said.find((s) => /LZ4 compression not implemented/.test(s)));
    expect(line).toMatch(/lz4-compressed records.*CompressionCodecs.*"Compressed topics" in docs\/runtime\.md/);
  });
});

eachClient('a service whose tier the broker compresses', { clients: CLIENTS.filter((c) => c.name !== 'kafkajs') }, (port) => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it.each(['zstd', 'lz4', 'snappy'] as const)('reads %s-compressed tier records and sends them on to the DLQ', async (codec) => {
    const d = testDescriptor(`tier-${codec}`, [1]);
    await createTopicsOf(d, 1);
    await compressTopic(d.tiers[0]!.topic, codec);
    const routed: string[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      handler: async () => {
        throw new Error('boom');
      },
      onEvent: (e) => void (e.type === 'routed' && routed.push(e.destination.kind)),
    });
    await consumer.start();
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: d.mainTopic, acks: -1, messages: [{ key: 'k', value: 'v', partition: 0 }] });
    await producer.disconnect();
    await eventually('the record through its tier to the DLQ', () => (routed.includes('dlq') ? true : undefined), 60_000);
    expect(routed).toEqual(['tier', 'dlq']);
  });
});

describe('the DLQ monitor on kafkajs and a DLQ whose records it cannot decode', () => {
  it('reports the DLQ size and says at once, with the codec, why it could not read the oldest record', async () => {
    const d = testDescriptor('lz4-dlq', [1]);
    await createTopicsOf(d, 1);
    await compressTopic(d.dlqTopic, 'lz4');
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: d.dlqTopic, acks: -1, messages: [{ key: 'k', value: 'dead', partition: 0 }] });
    await producer.disconnect();

    const errors: string[] = [];
    const monitor = createDlqMonitor(d, { port: kafkajsMonitorPort(kafkaAsAdmin(), d.groups.monitor), onError: (error) => void errors.push(String((error as Error).message)) });
    const started = Date.now();
    const snapshot = await monitor.poll();
    // Not the 15 s the head read waits for a record that never comes.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(snapshot.dlqSize).toBe(1);
    expect(errors).toEqual([expect.stringMatching(/could not read the oldest unhandled record of .* \(LZ4 compression not implemented\)/)]);
  });
});
