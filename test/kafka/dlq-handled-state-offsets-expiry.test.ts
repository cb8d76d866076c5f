/**
 * The DLQ's handled state lives in the replay group's committed offsets (offset and
 * metadata). The replay group has members only while a `krt dlq` command runs, so a broker
 * expires its offsets `offsets.retention.minutes` after the last command: 7 days by
 * default, while a DLQ keeps its records 28 days by default. Expiry is played here by the
 * admin API's DeleteGroups, which leaves the group as expiry does (seen on a broker with
 * offsets.retention.minutes=1: after a minute the group's offset read -1 with no metadata,
 * and `krt dlq inspect` listed every discarded record as unhandled again).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { HEADERS } from '../../src/naming/headers';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';

jest.setTimeout(120_000);

describe('the handled state of a DLQ', () => {
  let project: ScratchProject | undefined;
  afterEach(() => project?.remove());

  /*
   * What is seen: after the replay group's offsets expire, `krt dlq inspect` lists every
   * record replayed or discarded before as unhandled again, `krt dlq replay --all` would
   * replay them a second time (duplicates downstream), and the monitor's kafka_dlq_size
   * jumps back (its alerts fire for records handled long ago). Nothing keeps the state
   * alive between commands: the monitor only reads the group's offsets.
   * Code at fault: src/dlq/session.ts reads the handled state from the replay group's commit
   * only (and src/runtime/monitor.ts likewise); the generated Terraform and `krt validate`
   * accept a DLQ retention (28 days by default) beyond the broker's offsets.retention.minutes
   * (7 days by default), which krt never reads.
   * Class: state kept where a broker default expires it sooner than the data it describes.
   * Fix I would make: rebuild the handled state from the audit topic (`{base}.dlq.audit`
   * records every replay and discard with partition and offset) when the replay group has
   * no commit but the DLQ's log start is below the audit's highest offset; and have
   * `krt monitor` (or every session) re-commit the replay group's offsets and metadata
   * unchanged once a day, so an idle group never reaches the broker's retention. Until
   * then docs/dlq-tools.md says to keep offsets.retention.minutes at least the DLQ's retention.
   */
  it.failing('keeps discarded records handled after the broker expired the idle replay group offsets', async () => {
    const id = randomBytes(3).toString('hex');
    project = new ScratchProject(false);
    mkdirSync(project.path('topologies'));
    project.write(
      'topologies/idle.ts',
      `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'idle',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: 'idle-${id}', topic: { name: 'idle-${id}.main', partitions: 1 }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
    );
    const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
    if (!result.model) throw new Error(`the test topology does not compile: ${JSON.stringify(result.diagnostics)}`);
    const consumer = result.model.topologies[0]!.consumers[0]!;
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await createTopicsWithLeaders(
        admin,
        [consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name), consumer.dlq.name, consumer.dlqAudit.name].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
      );
      const producer = kafkaAsAdmin().producer();
      await producer.connect();
      await producer.send({
        topic: consumer.dlq.name,
        acks: -1,
        messages: [0, 1, 2].map((i) => ({
          key: `order-${i}`,
          value: `dead-${i}`,
          partition: 0,
          headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' },
        })),
      });
      await producer.disconnect();
      const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' };
      const krt = async (...args: string[]) => {
        let stdout = '';
        let stderr = '';
        const code = await runCli(args, { cwd: project!.dir, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
        return { code, stdout, stderr };
      };
      const unhandled = async () => (JSON.parse((await krt('dlq', 'inspect', consumer.name, '--json')).stdout) as { records: { value: string }[] }).records.map((r) => r.value);

      expect((await krt('dlq', 'discard', consumer.name, '--ids', '0:0,0:1,0:2', '--reason', 'duplicates of settled orders', '--by', 'test')).code).toBe(0);
      expect(await unhandled()).toEqual([]);

      // A week without a DLQ command: the broker drops the idle group's offsets.
      await admin.deleteGroups([consumer.groups.replay]);

      expect(await unhandled()).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  });
});
