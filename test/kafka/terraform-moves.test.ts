import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Admin } from 'kafkajs';
import { kafkaAsAdmin, produceAsAdmin, terraformRoot, terraformVars } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

// Ten Terraform applies and as many plans against the real broker.
jest.setTimeout(900_000);

/*
 * Issue 27 on the real broker with real Terraform and the Mongey provider: records
 * waiting in a DLQ and in a tier survive a consumer moved to another topology, a
 * topology renamed and a main topic handed to and from Terraform, and `terraform plan`
 * shows no changes in every stack afterwards.
 */

const run = randomBytes(3).toString('hex');
const prefix = `krt-moves-${run}`;
const topics = {
  moverMain: `${prefix}.refunds`,
  moverDlq: `${prefix}.refunds.dlq`,
  moverTier: `${prefix}.refunds.retry.1m`,
  stayerMain: `${prefix}.payouts`,
  stayerDlq: `${prefix}.payouts.dlq`,
  otherMain: `${prefix}.ledger`,
};

const consumer = (name: string, topic: string, extra = '') => `{
      name: '${name}-${run}',
      topic: { name: '${topic}', partitions: 3${extra} },
      principal: 'User:${name}-${run}',
      ladder: ['1m', '1h'],
    }`;

function topologyFile(name: string, consumers: string[], extra = ''): string {
  return `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: '${name}',${extra}
  owner: { team: 'platform', onCall: '#platform' },
  runbookBaseUrl: 'https://runbooks.example.com',
  cluster: { replicationFactor: 1, minInsyncReplicas: 1 },
  consumers: [
    ${consumers.join(',\n    ')},
  ],
});
`;
}

const workRoot = path.join(terraformRoot(), `moves-${run}`);
let project: ScratchProject;
let admin: Admin;

/** Synthesizes the scratch project; a refusal fails the test with krt's own words. */
async function synth(...args: string[]): Promise<void> {
  const result = await project.krt('synth', ...args);
  if (result.code !== 0) throw new Error(`krt synth refused:\n${result.stderr}`);
}

function terraform(stack: string, args: string[]): { code: number; output: string } {
  const { terraform: bin, env } = terraformTooling();
  try {
    return { code: 0, output: execFileSync(bin, [...args, '-input=false', '-no-color'], { cwd: path.join(workRoot, stack), env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

/** Copies the stack's generated JSON over its working copy (the state stays there) and applies it. */
function apply(stack: string): string {
  const dir = path.join(workRoot, stack);
  mkdirSync(dir, { recursive: true });
  copyFileSync(project.path(`generated/terraform/${stack}/cdk.tf.json`), path.join(dir, 'cdk.tf.json'));
  if (!existsSync(path.join(dir, '.terraform'))) {
    const init = terraform(stack, ['init']);
    if (init.code !== 0) throw new Error(`terraform init of ${stack} failed:\n${init.output}`);
  }
  // The provider now and then loses its broker connection on a loaded machine; what it did is in the state.
  for (let attempt = 1; ; attempt++) {
    const result = terraform(stack, ['apply', '-auto-approve', ...terraformVars()]);
    if (result.code === 0) return result.output;
    if (attempt === 3 || !/broker not connected|connection reset by peer|i\/o timeout|: EOF\b/.test(result.output)) throw new Error(`terraform apply of ${stack} failed:\n${result.output}`);
  }
}

function planIsEmpty(stack: string): { stack: string; code: number; output: string } {
  const plan = terraform(stack, ['plan', '-detailed-exitcode', ...terraformVars()]);
  return { stack, code: plan.code, output: plan.code === 0 ? 'No changes.' : plan.output };
}

/** Records in each topic: the high watermarks summed (a recreated topic starts again at 0). */
async function counts(): Promise<Record<string, number>> {
  const names = [topics.moverDlq, topics.moverTier, topics.stayerMain, topics.stayerDlq];
  const entries = await Promise.all(names.map(async (topic) => [topic, (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0)] as const));
  return Object.fromEntries(entries);
}

const waiting = { [topics.moverDlq]: 5, [topics.moverTier]: 4, [topics.stayerMain]: 3, [topics.stayerDlq]: 2 };

beforeAll(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  admin = kafkaAsAdmin().admin();
  await admin.connect();
  // Main topics krt does not manage belong to their producers: created as an admin would.
  await createTopicsWithLeaders(admin, [topics.moverMain, topics.otherMain].map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })));
  project.write('topologies/moves-a.ts', topologyFile('moves-a', [consumer('mover', topics.moverMain), consumer('stayer', topics.stayerMain, ', managed: true')]));
  project.write('topologies/moves-b.ts', topologyFile('moves-b', [consumer('other', topics.otherMain)]));
  await synth();
  apply('moves-a');
  apply('moves-b');
  for (const [topic, n] of Object.entries(waiting)) {
    await produceAsAdmin(topic, Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `record ${i} of ${topic}`, partition: i % 3 })));
  }
});

afterAll(async () => {
  await admin.disconnect();
  project.remove();
});

describe('records waiting in a DLQ and a tier survive moves and renames applied by real Terraform', () => {
  it('starts with the records in place', async () => {
    expect(await counts()).toEqual(waiting);
  });

  it('keeps them when a consumer moves to another topology, applied old stack first, and both plans are empty after', async () => {
    project.write('topologies/moves-a.ts', topologyFile('moves-a', [consumer('stayer', topics.stayerMain, ', managed: true')]));
    project.write('topologies/moves-b.ts', topologyFile('moves-b', [consumer('other', topics.otherMain), consumer('mover', topics.moverMain).replace('{\n', "{\n      previousTopology: 'moves-a',\n")]));
    await synth();
    // The old stack forgets the topics and the consumer's ACLs, and revokes only its own principals' ACLs.
    const old = apply('moves-a');
    expect(old).toMatch(/# kafka_topic\.\S+_refunds_dlq will no longer be managed by Terraform, but will not be destroyed/);
    expect(old).not.toMatch(/# kafka_topic\.\S+ (will be destroyed|must be replaced)/);
    expect(old).not.toMatch(/# kafka_acl\.mover-\S+ will be destroyed/);
    expect(apply('moves-b')).toMatch(/\d+ imported/);
    expect(await counts()).toEqual(waiting);
    expect([planIsEmpty('moves-a'), planIsEmpty('moves-b')]).toEqual([
      { stack: 'moves-a', code: 0, output: 'No changes.' },
      { stack: 'moves-b', code: 0, output: 'No changes.' },
    ]);
  });

  it('lets the declaration go once both stacks were applied, said so: nothing changes', async () => {
    project.write('topologies/moves-b.ts', topologyFile('moves-b', [consumer('other', topics.otherMain), consumer('mover', topics.moverMain)]));
    // Unsaid, krt cannot tell that moves-a forgot what moved: its next apply would delete it.
    expect((await project.krt('synth')).stderr).toContain("stack 'moves-a' would no longer forget");
    await synth('--applied', 'moves-a');
    expect(apply('moves-a')).toMatch(/0 added, 0 changed, 0 destroyed/);
    expect(apply('moves-b')).toMatch(/0 added, 0 changed, 0 destroyed/);
    expect(await counts()).toEqual(waiting);
  });

  it('keeps them when a topology is renamed, applied new stack first, and both plans are empty after', async () => {
    project.write('topologies/moves-b.ts', topologyFile('moves-c', [consumer('other', topics.otherMain), consumer('mover', topics.moverMain)], "\n  previousName: 'moves-b',"));
    await synth();
    expect(apply('moves-c')).toMatch(/\d+ imported/);
    const old = apply('moves-b');
    expect(old).not.toMatch(/# kafka_topic\.\S+ (will be destroyed|must be replaced)/);
    expect(old).toMatch(/0 added, 0 changed, \d+ destroyed/); // only the ACLs of the old topology's own principals
    expect(await counts()).toEqual(waiting);
    expect([planIsEmpty('moves-b'), planIsEmpty('moves-c')]).toEqual([
      { stack: 'moves-b', code: 0, output: 'No changes.' },
      { stack: 'moves-c', code: 0, output: 'No changes.' },
    ]);
    const listed = new Set(await admin.listTopics());
    expect([topics.moverDlq, topics.moverTier].filter((t) => !listed.has(t))).toEqual([]);
  });

  it('keeps a managed main topic handed back to its producers, and takes it over again with an import', async () => {
    project.write('topologies/moves-a.ts', topologyFile('moves-a', [consumer('stayer', topics.stayerMain, ', managed: false, previouslyManaged: true')]));
    await synth();
    expect(apply('moves-a')).toMatch(/0 added, 0 changed, 0 destroyed/);
    expect(await counts()).toEqual(waiting);
    expect(planIsEmpty('moves-a')).toEqual({ stack: 'moves-a', code: 0, output: 'No changes.' });

    project.write('topologies/moves-a.ts', topologyFile('moves-a', [consumer('stayer', topics.stayerMain, ', managed: true, previouslyManaged: false')]));
    // Its removed block goes, but the stack declares the topic again (imported): nothing to say applied.
    await synth();
    expect(apply('moves-a')).toMatch(/1 imported/);
    expect(await counts()).toEqual(waiting);
    expect(planIsEmpty('moves-a')).toEqual({ stack: 'moves-a', code: 0, output: 'No changes.' });
  });
});

describe('a topology removed with real Terraform', () => {
  it('deletes its topics and ACLs when the empty stack krt keeps for its deleted file is applied, and the plan is empty after', async () => {
    const decommissioned = (c: string) => c.replace('{\n', '{\n      decommissioned: true,\n');
    project.write('topologies/moves-b.ts', topologyFile('moves-c', [decommissioned(consumer('other', topics.otherMain)), decommissioned(consumer('mover', topics.moverMain))]));
    // previousName goes with this edit: both stacks of the rename were applied above.
    await synth('--applied', 'moves-b');
    expect(apply('moves-c')).toMatch(/0 destroyed/);
    rmSync(project.path('topologies/moves-b.ts'));
    await synth();
    // The stack's configuration is still there, with nothing in it: the apply deletes what its state holds.
    const applied = apply('moves-c');
    expect(applied).toMatch(/# kafka_topic\.\S+_refunds_dlq will be destroyed/);
    expect(applied).toMatch(/0 added, 0 changed, \d+ destroyed/);
    const listed = new Set(await admin.listTopics());
    expect([topics.moverDlq, topics.moverTier].filter((t) => listed.has(t))).toEqual([]);
    // Main topics belong to their producers: kept.
    expect([topics.moverMain, topics.otherMain].filter((t) => !listed.has(t))).toEqual([]);
    expect(planIsEmpty('moves-c')).toEqual({ stack: 'moves-c', code: 0, output: 'No changes.' });
  });
});
