/**
 * Review h142 (450127b), on a real broker: `krt dlq inspect --json | slow reader`. main() now
 * ends the process 2 s after the command resolves, and a write to a pipe is not synchronous
 * in Node on Linux (what does not fit in the pipe's 64 KiB waits in process.stdout's buffer;
 * see test/h142-exit-cuts-stdout.test.ts, where `krt simulate` loses all but 64 KiB).
 *
 * Held: inspect awaits io.drain() after each page, so it does not resolve until the reader
 * has taken all but the closing write; a reader that starts 20 s late still gets the whole
 * document (300 dead letters of 2 KiB, about 760 KB), exit 0. Only a reader that pauses in the
 * instant after the last drain (the closing write finds the pipe full) could lose that write.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { HEADERS } from '../../src/naming/headers';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { runPipeline } from '../helpers/pipeline-with-deadline';

jest.setTimeout(240_000);

const env = () => ({ ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' });
const COUNT = 300;

describe('krt dlq inspect --json behind a slow reader (review h142)', () => {
  let project: ScratchProject | undefined;
  afterAll(() => project?.remove());
  let name = '';
  const krtFromSource = `${path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti')} ${path.join(REPO_ROOT, 'src', 'cli', 'main.ts')}`;

  beforeAll(async () => {
    const id = randomBytes(3).toString('hex');
    project = new ScratchProject(false);
    mkdirSync(project.path('topologies'));
    project.write(
      'topologies/slow.ts',
      `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'slow',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: 'slow-${id}', topic: { name: 'slow-${id}.main', partitions: 1 }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
    );
    const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
    if (!result.model) throw new Error(JSON.stringify(result.diagnostics));
    const consumer = result.model.topologies[0]!.consumers[0]!;
    name = consumer.name;
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [
      { topic: consumer.mainTopic.name, numPartitions: 1, replicationFactor: 1 },
      ...consumer.tiers.map((t) => ({ topic: t.name, numPartitions: 1, replicationFactor: 1 })),
      { topic: consumer.dlq.name, numPartitions: 1, replicationFactor: 1 },
      { topic: consumer.dlqAudit.name, numPartitions: 1, replicationFactor: 1 },
    ]);
    await admin.disconnect();
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: consumer.dlq.name,
      acks: -1,
      messages: Array.from({ length: COUNT }, (_, i) => ({
        key: `order-${i}`,
        value: `dead-${i}-${'x'.repeat(2_048)}`,
        partition: 0,
        headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError', [HEADERS.errorMessage]: `bad order ${i}` },
      })),
    });
    await producer.disconnect();
  });

  it('prints the whole document to a fast reader (the baseline)', async () => {
    const run = await runPipeline(`${krtFromSource} dlq inspect ${name} --json | cat`, { cwd: project!.dir, env: env(), deadlineMs: 120_000 });
    expect({ code: run.code, stderr: run.stderr, hung: run.hung }).toEqual({ code: 0, stderr: '', hung: undefined });
    const doc = JSON.parse(run.stdout) as { records: unknown[]; unhandled: number };
    expect({ records: doc.records.length, unhandled: doc.unhandled, bigEnough: run.stdout.length > 300_000 }).toEqual({ records: COUNT, unhandled: COUNT, bigEnough: true });
  });

  it('prints the whole document to a reader that starts 20 s later', async () => {
    const run = await runPipeline(`${krtFromSource} dlq inspect ${name} --json | (sleep 20; cat)`, { cwd: project!.dir, env: env(), deadlineMs: 150_000 });
    expect({ code: run.code, stderr: run.stderr, hung: run.hung, bytes: run.stdout.length % 65_536 === 0 ? 'cut at a 64 KiB boundary' : 'whole' }).toEqual({ code: 0, stderr: '', hung: undefined, bytes: 'whole' });
    expect((JSON.parse(run.stdout) as { records: unknown[] }).records).toHaveLength(COUNT);
  });
});
