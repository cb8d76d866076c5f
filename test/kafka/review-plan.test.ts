import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Admin } from 'kafkajs';
import { kafkaAsAdmin, produceAsAdmin, terraformRoot, terraformVars } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(600_000);

/*
 * Review of #27, finding A on the real broker with real Terraform and the Mongey provider:
 * a main topic with 3 partitions in Kafka, whose spec says 1 (lowered, "safe": krt does not
 * manage it), is taken over with managed: true, previouslyManaged: false. `krt synth`
 * accepts, and the apply would import it and then replace it (the provider forces a new
 * topic when partitions go down). Now `krt plan` calls the take-over destructive until
 * checked with --live, and Terraform refuses the replacement (prevent_destroy).
 */

const run = randomBytes(3).toString('hex');
const main = `krt-review-${run}.orders`;
const workRoot = path.join(terraformRoot(), `review-${run}`);
let project: ScratchProject;
let admin: Admin;

const topology = (partitions: number, topic = '') => `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: 'review-${run}',
  owner: { team: 'platform', onCall: '#platform' },
  runbookBaseUrl: 'https://runbooks.example.com',
  cluster: { replicationFactor: 1, minInsyncReplicas: 1 },
  consumers: [
    {
      name: 'review-${run}',
      topic: { name: '${main}', partitions: ${partitions}${topic} },
      principal: 'User:review-${run}',
      ladder: [{ delay: '1m', partitions: 3 }],
      dlq: { partitions: 3 },
    },
  ],
});
`;

/** `krt plan` (what it says), then `krt synth`; a refusal fails the test with krt's own words. */
async function synth(): Promise<string> {
  const plan = await project.krt('plan');
  const result = await project.krt('synth');
  if (result.code !== 0) throw new Error(`krt synth refused:\n${result.stderr}`);
  return plan.stdout;
}

function apply(): string {
  const stack = `review-${run}`;
  const dir = path.join(workRoot, stack);
  mkdirSync(dir, { recursive: true });
  copyFileSync(project.path(`generated/terraform/${stack}/cdk.tf.json`), path.join(dir, 'cdk.tf.json'));
  const { terraform, env } = terraformTooling();
  const tf = (args: string[]) => execFileSync(terraform, [...args, '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (!existsSync(path.join(dir, '.terraform'))) tf(['init']);
  return tf(['apply', '-auto-approve', ...terraformVars()]);
}

const records = async () => (await admin.fetchTopicOffsets(main)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);

beforeAll(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [{ topic: main, numPartitions: 3, replicationFactor: 1 }]);
  await produceAsAdmin(main, Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `record ${i}`, partition: i % 3 })));
});

afterAll(async () => {
  await admin.disconnect();
  project.remove();
});

it('keeps the records of a main topic taken over after its spec partitions were lowered', async () => {
  project.write('topologies/review.ts', topology(3));
  await synth();
  apply();
  project.write('topologies/review.ts', topology(1));
  expect(await synth()).toMatch(/safe +main topic '.*' now says 1 partitions \(was 3\); krt does not manage it/);
  apply();
  project.write('topologies/review.ts', topology(1, ', managed: true, previouslyManaged: false'));
  // krt cannot see the real topic offline: the take-over is judged at worst, with the check to make.
  expect(await synth()).toMatch(/destructive +stack '.*' imports the existing topic '.*' .*if it has more than 1 partitions.*krt plan --live/);
  // Applied anyway, Terraform stops at the replacement (prevent_destroy on every topic krt generates).
  let failure = '';
  try {
    apply();
  } catch (error) {
    failure = String((error as { stderr?: string }).stderr ?? error);
  }
  expect({ records: await records(), refused: /prevent_destroy/.test(failure) }).toEqual({ records: 6, refused: true });
});
