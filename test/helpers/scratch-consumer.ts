import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ConsumerModel, ProjectModel } from '../../src/model/types';
import { kafkaAsAdmin } from './kafka';
import { ScratchProject } from './project';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

/**
 * A scratch project with one topology of one consumer of its own (a fresh id in its names, so
 * suites never share its groups or topics), compiled, and its topics created on the broker as
 * the admin. `dir` is the project, for a `krt` command to run in.
 */
export async function scratchConsumer(options: { readonly name: string; readonly partitions: number }): Promise<{ model: ProjectModel; consumer: ConsumerModel; dir: string }> {
  const id = randomBytes(3).toString('hex');
  const scratch = new ScratchProject(false);
  mkdirSync(scratch.path('topologies'));
  scratch.write(
    `topologies/${options.name}.ts`,
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: '${options.name}',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: '${options.name}-${id}', topic: { name: '${options.name}-${id}.orders', partitions: ${options.partitions} }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(scratch.dir), scratch.dir);
  if (!result.model) throw new Error(`the topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  const consumer = result.model.topologies[0]!.consumers[0]!;
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit].map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })));
  } finally {
    await admin.disconnect();
  }
  return { model: result.model, consumer, dir: scratch.dir };
}
