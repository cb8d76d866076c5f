import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclOperationTypes as AclOperation } from 'kafkajs';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { aclRules } from '../../src/model/acls';
import type { TopologyModel } from '../../src/model/types';
import { createAclsInEffect, DEPLOYER_USER, kafkaAsAdmin, terraformVars } from '../helpers/kafka';
import { REPO_ROOT, ScratchProject } from '../helpers/project';
import { terraformTooling } from '../helpers/tools';

jest.setTimeout(240_000);

/**
 * docs/deploying.md lists the ACLs a deployer that is no super user needs. This test
 * reads that table, grants exactly those rows to such a user, and applies a generated
 * stack as that user: the topics and every ACL must be there afterwards.
 */
const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'deploying.md'), 'utf8');
const run = `dep-${randomBytes(3).toString('hex')}`;

interface DeployerRow {
  readonly operation: string;
  readonly resource: 'Topic' | 'Cluster';
}

/** The rows of the deployer table: `| Create | Topic | ... |`. */
function documentedRows(): DeployerRow[] {
  const table = docs.split('### ACLs of the deployer')[1]!.split('\n\n').find((block) => block.startsWith('| operation |'))!;
  return table
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const [operation, resource] = line.split('|').slice(1, 3).map((cell) => cell.trim());
      return { operation: operation!, resource: resource!.split(' ')[0] as 'Topic' | 'Cluster' };
    });
}

const project = new ScratchProject(false);
let topology: TopologyModel;
afterAll(() => project.remove());

beforeAll(async () => {
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/deployed.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: '${run}',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com/kafka',
  consumers: [{ name: '${run}-billing', topic: { name: '${run}.orders', partitions: 2, managed: true }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
  );
  let stderr = '';
  expect(await runCli(['synth'], { cwd: project.dir, stdout: () => undefined, stderr: (t) => (stderr += t) })).toBe(0);
  expect(stderr).toBe('');
  topology = (await compileFiles(discoverTopologyFiles(project.dir), project.dir)).model!.topologies[0]!;
});

async function grantDeployer(rows: readonly DeployerRow[], topics: readonly string[]): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await createAclsInEffect(admin, {
      acl: rows.flatMap((row) =>
        (row.resource === 'Cluster' ? ['kafka-cluster'] : topics).map((name) => ({
          resourceType: row.resource === 'Cluster' ? AclResourceTypes.CLUSTER : AclResourceTypes.TOPIC,
          resourceName: name,
          resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: `User:${DEPLOYER_USER}`,
          host: '*',
          operation: AclOperationTypes[row.operation.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase() as keyof typeof AclOperation],
          permissionType: AclPermissionTypes.ALLOW,
        })),
      ),
    });
  } finally {
    await admin.disconnect();
  }
}

describe('a deployer that is no super user', () => {
  it('has its ACLs listed in docs/deploying.md', () => {
    expect(documentedRows().map((r) => `${r.operation} ${r.resource}`).sort()).toEqual(
      ['Alter Cluster', 'Alter Topic', 'AlterConfigs Topic', 'Create Topic', 'Delete Topic', 'Describe Cluster', 'Describe Topic', 'DescribeConfigs Topic'].sort(),
    );
  });

  it('applies a generated stack with exactly those ACLs: its topics and every ACL are created', async () => {
    const consumer = topology.consumers[0]!;
    const topics = [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit].map((t) => t.name);
    await grantDeployer(documentedRows(), topics);

    const { terraform, env } = terraformTooling();
    const dir = project.path(`generated/terraform/${run}`);
    execFileSync(terraform, ['init', '-input=false', '-no-color'], { cwd: dir, env, stdio: 'pipe' });
    const apply = (() => {
      try {
        return { code: 0, output: execFileSync(terraform, ['apply', '-auto-approve', '-input=false', '-no-color', ...terraformVars(DEPLOYER_USER)], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
      } catch (error) {
        const e = error as { status: number; stdout: string; stderr: string };
        return { code: e.status, output: `${e.stdout}${e.stderr}` };
      }
    })();
    expect({ code: apply.code, errors: apply.output.split('\n').filter((l) => l.startsWith('Error')) }).toEqual({ code: 0, errors: [] });

    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      expect((await admin.listTopics()).filter((t) => t.startsWith(`${run}.`)).sort()).toEqual([...topics].sort());
      const acls = await admin.describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      });
      const rules = aclRules(topology);
      // The stack's own resources (the drift principal's cluster ACL included) and principals.
      const names = new Set(rules.map((r) => r.resourceName));
      const principals = new Set(rules.map((r) => r.principal));
      const created = acls.resources.filter((r) => names.has(r.resourceName)).flatMap((r) => r.acls.filter((a) => principals.has(a.principal)));
      expect(created).toHaveLength(rules.length);
    } finally {
      await admin.disconnect();
    }
  });
});
