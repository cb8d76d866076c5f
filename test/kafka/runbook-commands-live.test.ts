import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { aclRules } from '../../src/model/acls';
import type { TopologyModel } from '../../src/model/types';
import { HEADERS, principalName } from '../../src/naming';
import { bootstrapServers, createAclsInEffect, kafkaAsAdmin, kafkajsAcl, produceAsAdmin } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';
import { kcat } from '../helpers/tools';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(180_000);

/**
 * Every command a generated runbook prints, run on the real broker exactly as printed
 * (placeholders filled in with what krt printed before), as the principal the runbook
 * names for it. Its own topics, so other tests' DLQs are left alone; the test broker's
 * orders-replay and orders-monitor users.
 */
const run = `rbk-${randomBytes(3).toString('hex')}`;
const REPLAY = 'orders-replay';
const MONITOR = 'orders-monitor';

const spec = (ordering: string, criticality: string) => `
  {
    name: '${run}-${ordering}',
    topic: { name: '${run}.${ordering}', partitions: 2 },
    principal: 'User:billing',
    ladder: ['1m', '10m'],
    ordering: '${ordering}',
    criticality: '${criticality}',
  }`;

const project = new ScratchProject(false);
let topology: TopologyModel;

beforeAll(async () => {
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/live.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'live',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com/kafka',
  principals: { replay: 'User:${REPLAY}', monitor: 'User:${MONITOR}' },
  consumers: [${spec('park-by-key', 'money')}, ${spec('unordered', 'standard')}],
});
`,
  );
  const synth = await krt('orders-replay', 'synth');
  expect(synth.stderr).toBe('');
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  topology = result.model!.topologies[0]!;
  await deploy(topology);
});
afterAll(() => project.remove());

/** What the generated Terraform creates (tested on its own in terraform-apply), done here with the admin client. */
async function deploy(model: TopologyModel): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const topics = model.consumers.flatMap((c) => [c.mainTopic, ...c.tiers, c.dlq, c.dlqAudit]);
    await createTopicsWithLeaders(admin, topics.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })));
    await createAclsInEffect(admin, {
      acl: aclRules(model).map(kafkajsAcl),
    });
  } finally {
    await admin.disconnect();
  }
}

async function krt(user: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SSL: 'false', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: user, KAFKA_SASL_PASSWORD: passwordOf(user) };
  const code = await runCli(args, { cwd: project.dir, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** The words of a command line as a shell would split them (quotes and all). */
function words(command: string): string[] {
  return execFileSync('bash', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' }).split('\0').slice(0, -1);
}

/** Every `krt ...` and `kcat ...` line of a page: in code blocks and in inline code. */
function printedCommands(page: string): string[] {
  const found = [...page.matchAll(/(?:^\s*|`)((?:krt|kcat) [^`\n]+?)(?:`|\s+#|$)/gm)].map((m) => m[1]!.trim());
  return [...new Set(found)];
}

/** The principal a page says a command runs as, read from the page itself. */
function principalFor(page: string, command: string): string {
  const replay = /`krt dlq` runs as the replay principal `([^`]+)`/.exec(page)?.[1];
  const monitor = /`krt lag` and `kcat` run as\s+the read-only monitor principal `([^`]+)`/.exec(page)?.[1];
  const principal = command.startsWith('krt dlq ') ? replay : monitor;
  if (!principal) throw new Error(`the runbook does not say which principal runs: ${command}`);
  return principalName(principal);
}

/** kcat's settings file as the page prints it, with the placeholders a reader fills in. */
function kcatConfig(page: string, user: string): string {
  const block = /```properties\n([\s\S]*?)```/.exec(page)![1]!;
  const file = project.path(`${user}.kcat.conf`);
  project.write(
    `${user}.kcat.conf`,
    block
      .replace('<host:port,...>', bootstrapServers())
      .replace('security.protocol=SASL_SSL', 'security.protocol=SASL_PLAINTEXT')
      .replace('<from your secret store>', passwordOf(user)),
  );
  return file;
}

function runKcat(page: string, user: string, command: string): { code: number; stdout: string; stderr: string } {
  const args = words(command).slice(1);
  const config = args.indexOf('-F');
  args[config + 1] = kcatConfig(page, user);
  const result = spawnSync(kcat(), args, { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe.each(['park-by-key', 'unordered'])('the runbook of a %s consumer, on the broker', (ordering) => {
  const name = `${run}-${ordering}`;
  let page: string;
  let commands: string[];
  const errorNames = ['OrderValidationError', 'CurrencyMismatchError', 'TestEventError'];

  beforeAll(async () => {
    page = project.read(`generated/runbooks/${name}.md`);
    commands = printedCommands(page);
    const consumer = topology.consumers.find((c) => c.name === name)!;
    await produceAsAdmin(consumer.tiers[0]!.name, [{ key: 'order-1', value: `${run} waiting`, partition: 1 }]);
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: consumer.dlq.name,
      acks: -1,
      messages: errorNames.map((error, offset) => ({
        key: `order-${offset}`,
        value: `${run} dead ${error}`,
        partition: 0,
        headers: {
          [HEADERS.attempt]: '1',
          [HEADERS.errorClass]: error,
          [HEADERS.errorMessage]: `${error} on order-${offset}`,
          [HEADERS.originalTopic]: consumer.mainTopic.name,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: String(offset),
        },
      })),
    });
    await producer.disconnect();
  });

  it('prints the broker commands this test runs, and no other', () => {
    // Commands for this consumer; `krt synth` and commands named in prose, without a
    // consumer, are checked against the CLI by runbook-commands.test.ts.
    const runnable = commands.filter((c) => c.startsWith('kcat') || c.includes(` ${name}`));
    const kinds = runnable.map((c) => c.split(' ').slice(0, c.startsWith('krt dlq') ? 3 : 2).join(' '));
    expect([...new Set(kinds)].sort()).toEqual(['kcat -F', 'krt dlq discard', 'krt dlq inspect', 'krt dlq replay', 'krt lag'].sort());
  });

  it('lets the monitor see the lag of each tier and the DLQ backlog with krt lag', async () => {
    const lag = commands.find((c) => c.startsWith('krt lag'))!;
    const result = await krt(principalFor(page, lag), ...words(lag).slice(1));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`${name.replace(`-${ordering}`, `.${ordering}`)}.retry.1m (tier 1m)`);
    expect(result.stdout).toMatch(/\.dlq \(DLQ\), group .*: backlog 3\n/);
    expect(result.stdout).toMatch(/\.retry\.1m \(tier 1m\), group .*: lag 1\n(.*\n)*? {2}1 +0 +1 +1\n/);
  });

  it('lets the monitor read the DLQ and the head of a tier with kcat, headers included', () => {
    const user = principalFor(page, 'kcat');
    for (const command of commands.filter((c) => c.startsWith('kcat'))) {
      const filled = command.replace('<partition>', '1').replace('<committed>', '0');
      const result = runKcat(page, user, filled);
      // kcat names its settings file on stderr; anything else there is a problem.
      const stderr = result.stderr.replace(/^% Reading configuration from file .*\n/m, '');
      expect({ command, code: result.code, stderr }).toEqual({ command, code: 0, stderr: '' });
      expect(result.stdout).toContain(`${run} `);
      expect(result.stdout).toMatch(filled.includes('.retry.') ? /waiting/ : new RegExp(`${HEADERS.errorClass}.OrderValidationError`));
    }
  });

  it('lets the replay principal inspect, dry-run, replay by error name and by id, and discard', async () => {
    const user = principalFor(page, 'krt dlq inspect');
    const byPrefix = (prefix: string, has: string, lacks?: string) =>
      commands.find((c) => c.startsWith(`${prefix} ${name}`) && c.includes(has) && (!lacks || !c.includes(lacks)))!;
    const runIt = async (command: string) => {
      const result = await krt(user, ...words(command).slice(1));
      // Progress ("replayed 1/1") goes to stderr; errors would too, and set the exit code.
      const problems = result.stderr.split('\n').filter((line) => line && !/^(replayed|discarded) \d+\/\d+$/.test(line));
      expect({ command, code: result.code, problems }).toEqual({ command, code: 0, problems: [] });
      return result.stdout;
    };
    const inspected = await runIt(byPrefix('krt dlq inspect', name, '--json'));
    expect(inspected).toContain('by error name (x-error-class) and original topic:');
    expect(inspected).toContain('OrderValidationError  from');
    expect(JSON.parse(await runIt(byPrefix('krt dlq inspect', '--json'))).unhandled).toBe(3);
    const dryRun = byPrefix('krt dlq replay', '--dry-run').replace('<error-name>', 'OrderValidationError');
    expect(await runIt(dryRun)).toContain('0:0');
    await runIt(byPrefix('krt dlq replay', '--error-class', '--dry-run').replace('<error-name>', 'OrderValidationError'));
    await runIt(byPrefix('krt dlq replay', '--ids').replace('<partition>:<offset>,...', '0:1'));
    await runIt(byPrefix('krt dlq discard', '--ids').replace('<partition>:<offset>,...', '0:2').replace('<why it cannot be saved>', 'a test event').replace('<your name>', 'the runbook test'));
    expect(JSON.parse(await runIt(byPrefix('krt dlq inspect', '--json'))).unhandled).toBe(0);
  });
});
