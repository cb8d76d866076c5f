/**
 * Every monitor of a consumer reads in its one monitor group: `krt monitor`, and the
 * in-process monitor (createDlqMonitor, the NestJS module) of each replica of the service.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { Registry } from 'prom-client';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';

jest.setTimeout(240_000);

/** A topology of one consumer with `partitions` partitions per topic, compiled in the project. */
async function consumerIn(project: ScratchProject, partitions: number): Promise<ConsumerModel> {
  const name = `shared-${randomBytes(3).toString('hex')}`;
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/shared.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'shared',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: '${name}', topic: { name: '${name}.main', partitions: ${partitions} }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  if (!result.model) throw new Error(`the test topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  return result.model.topologies[0]!.consumers[0]!;
}

describe('three monitors of one consumer polling at once', () => {
  let project: ScratchProject | undefined;
  afterEach(() => project?.remove());

  it('each poll of each reads every DLQ partition and the whole audit log, and reports the same size and oldest record', async () => {
    project = new ScratchProject(false);
    const consumer = await consumerIn(project, 3);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    try {
      await createTopicsWithLeaders(admin, [
        ...[consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name), consumer.dlq.name].map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })),
        { topic: consumer.dlqAudit.name, numPartitions: 2, replicationFactor: 1 },
      ]);
      // Two records a partition, the oldest first in partition 0, then 1, then 2.
      const base = Date.now() - 3_600_000;
      const at = (partition: number, i: number) => base + (3 * i + partition) * 60_000;
      for (const i of [0, 1]) {
        for (const partition of [0, 1, 2]) {
          const headers = { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' };
          await producer.send({ topic: consumer.dlq.name, acks: -1, messages: [{ key: `k${partition}`, value: `dead-${partition}-${i}`, partition, timestamp: String(at(partition, i)), headers }] });
        }
      }
      const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' };
      const discard = async (id: string) => {
        const code = await runCli(['dlq', 'discard', consumer.name, '--ids', id, '--reason', 'settled', '--by', 'test'], { cwd: project!.dir, env, stdout: () => undefined, stderr: () => undefined });
        expect(code).toBe(0);
        // The replay group's commits gone (expired): the monitors fold the audit log instead.
        await admin.deleteGroups([consumer.groups.replay]);
      };

      // Two replicas' in-process monitors and krt monitor's, each with its own client, as three processes.
      const errors: unknown[] = [];
      const monitors = [0, 1, 2].map(() =>
        createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAsAdmin(), consumer.groups.monitor), registry: new Registry(), onError: (e) => errors.push(e) }),
      );
      const polls = async () => (await Promise.all(monitors.map((m) => m.poll()))).map(({ dlqSize, oldestUnhandledAt }) => ({ dlqSize, oldestUnhandledAt }));

      const seen = [];
      await discard('0:0');
      seen.push(await polls());
      await discard('1:0');
      seen.push(await polls());
      await discard('2:0');
      seen.push(await polls());
      seen.push(await polls());
      const each = (dlqSize: number, oldestUnhandledAt: number) => [0, 1, 2].map(() => ({ dlqSize, oldestUnhandledAt }));
      expect({ seen, errors }).toEqual({ seen: [each(5, at(1, 0)), each(4, at(2, 0)), each(3, at(0, 1)), each(3, at(0, 1))], errors: [] });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});
