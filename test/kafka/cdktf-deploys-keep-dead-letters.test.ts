import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Admin } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { bootstrapServers, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(600_000);

/*
 * On the real broker with real Terraform: `cdktf deploy` applies the stacks `krt cdktf`
 * builds, and `krt cdktf` builds only what `krt synth` wrote. A consumer added to the spec
 * is not deployed before krt synth; once synthesized and deployed, with dead letters in
 * its DLQ, taking it out of the spec again (not decommissioned) deploys nothing and the
 * dead letters stay (finding 3117c0f: two deploys in a row without krt synth deleted them).
 * Each deploy is the real `cdktf deploy <stack>` (the provider from the local mirror, the
 * state in the project folder, as test/kafka/cdktf-deploy.test.ts).
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

let project: ScratchProject;
let admin: Admin;

/** `cdktf deploy <stack>` itself, as the user runs it: its app is `krt cdktf` (run from the sources here). */
async function cdktfDeploy(): Promise<{ built: boolean; stderr: string }> {
  const cdktf = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdktf.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(project.path('cdktf.json'), JSON.stringify({ ...cdktf, app: `${path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti')} ${path.join(REPO_ROOT, 'src', 'cli', 'main.ts')} cdktf` }));
  const { terraform, env } = terraformTooling();
  try {
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'cdktf'), ['deploy', stack, '--auto-approve', '--skip-provider-lock'], {
      cwd: project.dir,
      stdio: 'pipe',
      encoding: 'utf8',
      env: {
        ...env,
        CI: '1',
        TERRAFORM_BINARY_NAME: terraform,
        TF_VAR_kafka_bootstrap_servers: JSON.stringify(bootstrapServers().split(',')),
        TF_VAR_kafka_sasl_username: ADMIN_USER,
        TF_VAR_kafka_sasl_password: passwordOf(ADMIN_USER),
        TF_VAR_kafka_tls_enabled: 'false',
        TF_VAR_replication_factor: '1',
        TF_VAR_min_insync_replicas: '1',
      },
    });
    return { built: true, stderr: '' };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { built: false, stderr: `${e.stdout ?? ''}${e.stderr ?? ''}` };
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
  admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [keeperMain, addedMain].map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })));
  project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain)]));
  const synth = await project.krt('synth');
  if (synth.code !== 0) throw new Error(`krt synth refused:\n${synth.stderr}`);
  expect((await cdktfDeploy()).built).toBe(true);
});

afterAll(async () => {
  await admin.disconnect();
  project.remove();
});

describe('cdktf deploys of spec edits, on the real broker', () => {
  it('keeps the dead letters of a deployed consumer taken out of the spec, and deploys nothing krt synth did not write', async () => {
    project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain), consumer('added', addedMain)]));
    const unsynthesized = await cdktfDeploy();
    expect(unsynthesized.built).toBe(false);
    expect(unsynthesized.stderr).toContain('krt cdktf builds only what krt synth wrote');
    expect(await dlqRecords()).toBe('deleted'); // never created

    expect((await project.krt('synth')).code).toBe(0);
    expect((await cdktfDeploy()).built).toBe(true);
    await produceAsAdmin(addedDlq, Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `dead letter ${i}`, partition: i % 3 })));
    expect(await dlqRecords()).toBe(5);

    project.write('topologies/shop.ts', topologyFile([consumer('keeper', keeperMain)]));
    const second = await cdktfDeploy();
    expect({ refused: !second.built, dlq: await dlqRecords() }).toEqual({ refused: true, dlq: 5 });
    expect(second.stderr).toContain(`'${addedDlq}'`);
  });

  it('stops cdktf deploy, deploying nothing, when krt cdktf refuses', async () => {
    const retimed = topologyFile([consumer('keeper', keeperMain).replace("ladder: ['1m']", "ladder: ['2m']")]);
    project.write('topologies/shop.ts', retimed);
    const deploy = await cdktfDeploy();
    expect(deploy.built).toBe(false);
    expect(deploy.stderr).toContain(`'${keeperMain}.retry.1m'`);
    expect((await admin.fetchTopicMetadata({ topics: [] })).topics.map((t) => t.name)).toContain(`${keeperMain}.retry.1m`);
  });
});
