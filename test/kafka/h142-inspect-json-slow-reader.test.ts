/**
 * Review h142 (450127b), on a real broker: `krt dlq inspect --json | slow reader`. main() now
 * ends the process 2 s after the command resolves, and a write to a pipe is not synchronous
 * in Node on Linux (what does not fit in the pipe's 64 KiB waits in process.stdout's buffer;
 * see test/h142-exit-cuts-stdout.test.ts, where `krt simulate` loses all but 64 KiB).
 *
 * Held: inspect awaits io.drain() after each page, so it does not resolve until the reader
 * has taken all but the closing write; a reader that starts 20 s late still gets the whole
 * document (2,000 dead letters of 0.5 KiB, a few MB of JSON), exit 0. Only a reader that pauses in the
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
const COUNT = 2_000;

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
    // In batches: one request of every record is past the broker's message.max.bytes.
    for (let from = 0; from < COUNT; from += 200) {
      await producer.send({
        topic: consumer.dlq.name,
        acks: -1,
        messages: Array.from({ length: Math.min(200, COUNT - from) }, (_, j) => from + j).map((i) => ({
          key: `order-${i}`,
          value: `dead-${i}-${'x'.repeat(512)}`,
          partition: 0,
          headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError', [HEADERS.errorMessage]: `bad order ${i}` },
        })),
      });
    }
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
  /*
   * Found (h142): `krt dlq replay --dry-run` (and a replay's own listing and outcome lines)
   * writes one line per record with io.stdout and no drain, then resolves: 2,000 records are
   * about 187 KB. Behind a pager (`| less`, which reads only a screenful until the operator
   * scrolls) or any reader that is not reading 2 s after the command ended, everything past the
   * pipe's 64 KiB is dropped, the closing "dry run: nothing was published or committed" (or
   * "replayed N records ... recorded in <audit>") among it, exit 0.
   * Seen: `| cat` 186,904 characters ending with the closing line; `| (sleep 20; cat)` 64,812
   * characters (the pipe's 64 KiB), no closing line, pipeline exit 0.
   * Code at fault: src/cli/process-main.ts (setTimeout(process.exit, 2 s) with stdout unflushed);
   * src/cli/dlq-command.ts replay writes its lines without io.drain.
   * Fixed: process-main arms the timer once stdout and stderr flushed (write('', cb) on each).
   */
  it('lists every record of a replay --dry-run, and its closing line, to a reader that starts 20 s later', async () => {
    const command = `${krtFromSource} dlq replay ${name} --all --limit ${COUNT} --dry-run`;
    const fast = await runPipeline(`${command} | cat`, { cwd: project!.dir, env: env(), deadlineMs: 120_000 });
    const slow = await runPipeline(`${command} | (sleep 20; cat)`, { cwd: project!.dir, env: env(), deadlineMs: 150_000 });
    const shape = (run: typeof fast) => ({ code: run.code, hung: run.hung, bytes: run.stdout.length, closing: run.stdout.trimEnd().endsWith('dry run: nothing was published or committed') });
    expect(shape(fast)).toEqual({ code: 0, hung: undefined, bytes: expect.any(Number), closing: true });
    expect(fast.stdout.length).toBeGreaterThan(100_000);
    expect(shape(slow)).toEqual(shape(fast));
  });
});
