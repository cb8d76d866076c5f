import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Admin } from 'kafkajs';
import { kafkaAsAdmin, produceAsAdmin, terraformRoot, terraformVars } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';

jest.setTimeout(600_000);

/*
 * The finding of test/attack-cdktf-deploys.test.ts on the real broker with real Terraform:
 * `cdktf deploy` applies the stacks `krt cdktf` builds into $CDKTF_OUTDIR, and `krt cdktf`
 * judges the spec against the committed snapshot only. A consumer added to the spec and
 * deployed (no krt synth yet), then taken out of the spec again (not decommissioned), is
 * "no change" against that snapshot: the second deploy deletes its DLQ with the dead
 * letters in it. Here each deploy is what cdktf deploy does: `krt cdktf`, then, when it
 * built the stack, `terraform apply` of that stack in one working folder (one state).
 */
const run = randomBytes(3).toString('hex');
const stack = `cdktf-attack-${run}`;
const keeperMain = `krt-cdktf-${run}.orders`;
const addedMain = `krt-cdktf-${run}.shipped`;
const addedDlq = `${addedMain}.dlq`;

const consumer = (name: string, topic: string) => `{
      name: '${name}-${run}',
      topic: { name: '${topic}', partitions: 3 },
      principal: 'User:${name}-${run}',
      ladder: ['1m'],
    }`;

const topologyFile = (consumers: string[]) => `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: '${stack}',
  owner: { team: 'platform', onCall: '#platform' },
  runbookBaseUrl: 'https://runbooks.example.com',
  cluster: { replicationFactor: 1, minInsyncReplicas: 1 },
  consumers: [
    ${consumers.join(',\n    ')},
  ],
});
`;

const workDir = path.join(terraformRoot(), stack);
let project: ScratchProject;
let admin: Admin;
let cdktfOut: string;
const savedOutDir = process.env.CDKTF_OUTDIR;

function terraform(args: string[]): { code: number; output: string } {
  const { terraform: bin, env } = terraformTooling();
  try {
    return { code: 0, output: execFileSync(bin, [...args, '-input=false', '-no-color'], { cwd: workDir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

/** `cdktf deploy <stack>`: the app builds the stacks; when it built this one, Terraform applies it. */
async function cdktfDeploy(): Promise<{ built: boolean; stderr: string }> {
  rmSync(cdktfOut, { recursive: true, force: true });
  const app = await project.krt('cdktf');
  const built = path.join(cdktfOut, 'stacks', stack, 'cdk.tf.json');
  if (app.code !== 0 || !existsSync(built)) return { built: false, stderr: app.stderr };
  mkdirSync(workDir, { recursive: true });
  copyFileSync(built, path.join(workDir, 'cdk.tf.json'));
  if (!existsSync(path.join(workDir, '.terraform'))) {
    const init = terraform(['init']);
    if (init.code !== 0) throw new Error(`terraform init failed:\n${init.output}`);
  }
  for (let attempt = 1; ; attempt++) {
    const result = terraform(['apply', '-auto-approve', ...terraformVars()]);
    if (result.code === 0) return { built: true, stderr: app.stderr };
    if (attempt === 3 || !/broker not connected|connection reset by peer|i\/o timeout|: EOF\b/.test(result.output)) throw new Error(`terraform apply failed:\n${result.output}`);
  }
}

/** Records in the DLQ, or 'deleted' once the topic is gone. */
async function dlqRecords(): Promise<number | 'deleted'> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [] });
  if (!topics.some((t) => t.name === addedDlq)) return 'deleted';
  return (await admin.fetchTopicOffsets(addedDlq)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
}

beforeAll(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  cdktfOut = mkdtempSync(path.join(os.tmpdir(), 'krt-attack-cdktf-out-'));
  process.env.CDKTF_OUTDIR = cdktfOut;
  admin = kafkaAsAdmin().admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [keeperMain, addedMain].map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })) });
  project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain)]));
  const synth = await project.krt('synth');
  if (synth.code !== 0) throw new Error(`krt synth refused:\n${synth.stderr}`);
  expect((await cdktfDeploy()).built).toBe(true);
});

afterAll(async () => {
  await admin.disconnect();
  project.remove();
  rmSync(cdktfOut, { recursive: true, force: true });
  if (savedOutDir === undefined) delete process.env.CDKTF_OUTDIR;
  else process.env.CDKTF_OUTDIR = savedOutDir;
});

describe('two cdktf deploys in a row, without krt synth between them, on the real broker', () => {
  // Defect (src/cli/cdktf-command.ts): the guard reads generated/ only, never what the
  // previous cdktf build deployed; the second deploy deletes the DLQ with its 5 dead letters.
  it.failing('keeps the dead letters of a consumer deployed by cdktf and then taken out of the spec', async () => {
    project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain), consumer('added', addedMain)]));
    expect((await cdktfDeploy()).built).toBe(true);
    await produceAsAdmin(addedDlq, Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `dead letter ${i}`, partition: i % 3 })));
    expect(await dlqRecords()).toBe(5);

    project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain)]));
    const second = await cdktfDeploy();
    expect({ refused: !second.built, dlq: await dlqRecords() }).toEqual({ refused: true, dlq: 5 });
  });
});
