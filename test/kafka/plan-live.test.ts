import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import { KAFKA_ENV } from '../../src/naming';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, createAclsInEffect, kafkaAsAdmin, produceAsAdmin, terraformVars } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(180_000);

/**
 * A topology of its own, applied with the real Terraform, so the drift injected here
 * touches nobody else's topics. Its principals are users the test broker has.
 */
const id = `live-${randomBytes(4).toString('hex')}`;
const main = `${id}.main`;
const spec = {
  name: id,
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com/kafka',
  principals: { replay: 'User:orders-replay', monitor: 'User:orders-monitor', drift: 'User:orders-drift' },
  consumers: [{ name: id, topic: { name: main, partitions: 3 }, principal: 'User:billing', ladder: ['1s', '4s'], retired: ['2s'] }],
};

const project = new ScratchProject(false);
let admin: Admin;

async function planLive(...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = {
    [KAFKA_ENV.bootstrapServers]: bootstrapServers(),
    [KAFKA_ENV.saslUsername]: 'orders-drift',
    [KAFKA_ENV.saslPassword]: passwordOf('orders-drift'),
    [KAFKA_ENV.ssl]: 'false',
  };
  const code = await runCli(['plan', '--live', '--min-insync-replicas', '1', ...flags, 'topologies/live.ts'], {
    cwd: project.dir,
    env,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [{ topic: main, numPartitions: 3, replicationFactor: 1 }]);
  execFileSync('mkdir', ['-p', project.path('topologies')]);
  project.write('topologies/live.ts', `export default ${JSON.stringify(spec, null, 2)};\n`);
  const synth = await project.krt('synth');
  if (synth.code !== 0) throw new Error(synth.stderr);
  const { terraform, env } = terraformTooling();
  const dir = project.path(`generated/terraform/${id}`);
  execFileSync(terraform, ['init', '-input=false', '-no-color'], { cwd: dir, env, stdio: 'pipe' });
  execFileSync(terraform, ['apply', '-auto-approve', '-input=false', '-no-color', ...terraformVars()], { cwd: dir, env, stdio: 'pipe' });
  await produceAsAdmin(`${main}.retry.2s`, [{ key: 'k', value: 'waiting in the draining tier', partition: 0 }]);
});

afterAll(async () => {
  await admin.disconnect();
  project.remove();
});

describe('krt plan --live, as the read-only drift principal, on a real broker', () => {
  it('reports the freshly applied cluster clean, and how far the draining tier is', async () => {
    const result = await planLive();
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        `${id} / ${id}`,
        `  draining  draining tier 2s ('${main}.retry.2s') still has 1 records waiting; keep it retired`,
        '',
        'the cluster matches the spec',
        '',
      ].join('\n'),
    );
  });

  it('finds a config altered by hand, a deleted ACL, an ACL granted by hand and the main topic grown past its tiers; exits 4', async () => {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: `${main}.retry.4s`, configEntries: [{ name: 'retention.ms', value: '3600000' }, { name: 'min.insync.replicas', value: '1' }] }],
    });
    const acl = { resourceType: AclResourceTypes.TOPIC, resourcePatternType: ResourcePatternTypes.LITERAL, host: '*', permissionType: AclPermissionTypes.ALLOW };
    await admin.deleteAcls({ filters: [{ ...acl, resourceName: `${main}.dlq`, principal: 'User:orders-monitor', operation: AclOperationTypes.READ }] });
    await createAclsInEffect(admin, { acl: [{ ...acl, resourceName: `${main}.dlq`, principal: 'User:billing', operation: AclOperationTypes.READ }] });
    await admin.createPartitions({ topicPartitions: [{ topic: main, count: 4 }] });

    const result = await eventually('the drift to show', async () => {
      const r = await planLive('--json');
      return JSON.parse(r.stdout).drift >= 6 ? r : undefined;
    });
    expect(result.code).toBe(4);
    const texts = (JSON.parse(result.stdout) as { findings: { kind: string; text: string }[] }).findings.filter((f) => f.kind === 'drift').map((f) => f.text);
    expect(texts).toEqual(
      expect.arrayContaining([
        `'${main}.retry.4s' has retention.ms=3600000, the spec says 604800000`,
        `ACL missing: User:orders-monitor Read Topic '${main}.dlq'; apply the Terraform`,
        `ACL not in the spec: User:billing Read Topic '${main}.dlq'; remove it, or declare what needs it`,
        `main topic '${main}' has 4 partitions, the spec says 3; set topic.partitions to 4 so the tiers and DLQ follow`,
        `'${main}.retry.1s' has 3 partitions, fewer than the 4 of the main topic, so records of the other partitions cannot keep theirs (R4)`,
        `'${main}.dlq' has 3 partitions, fewer than the 4 of the main topic, so records of the other partitions cannot keep theirs (R4)`,
      ]),
    );
  });

  it('writes nothing: the drift principal could not, and the drift is still there', async () => {
    expect((await planLive()).code).toBe(4);
    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: `${main}.retry.4s`, configNames: ['retention.ms'] }] });
    expect(configs.resources[0]!.configEntries[0]!.configValue).toBe('3600000');
  });
});
