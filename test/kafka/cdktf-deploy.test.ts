import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';

jest.setTimeout(5 * 60_000);

const stem = `deploy-${randomBytes(3).toString('hex')}`;

describe('cdktf deploy, offline, on a real broker', () => {
  const project = new ScratchProject(false);
  afterAll(() => project.remove());

  it('applies a topology through the provider mirror when the provider lock is skipped', async () => {
    mkdirSync(project.path('topologies'));
    project.write(
      'topologies/deploy.ts',
      `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'deploy',
  owner: { team: 'platform', onCall: '#platform' },
  runbookBaseUrl: 'https://example.com/runbooks',
  consumers: [{ name: '${stem}', topic: { name: '${stem}.events', partitions: 2 }, principal: 'User:billing', ladder: ['1m'], criticality: 'analytics' }],
});
`,
    );
    // krt cdktf builds only what krt synth wrote.
    expect((await project.krt('synth')).code).toBe(0);
    // cdktf.json as in the repository, with the app run from the sources here.
    const cdktf = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdktf.json'), 'utf8'));
    writeFileSync(project.path('cdktf.json'), JSON.stringify({ ...cdktf, app: `${path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti')} ${path.join(REPO_ROOT, 'src', 'cli', 'main.ts')} cdktf` }));
    const { terraform, env } = terraformTooling();
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'cdktf'), ['deploy', 'deploy', '--auto-approve', '--skip-provider-lock'], {
      cwd: project.dir,
      stdio: 'pipe',
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
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(expect.arrayContaining([`${stem}.events.retry.1m`, `${stem}.events.dlq`]));
    } finally {
      await admin.disconnect();
    }
  });
});
