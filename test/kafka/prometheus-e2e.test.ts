import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { passwordOf } from '../../scripts/kafka/broker';
import { runCli } from '../../src/cli/program';
import type { CliIo } from '../../src/cli/io';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { aclRules } from '../../src/model/acls';
import type { ConsumerModel, TopologyModel } from '../../src/model/types';
import { KAFKA_ENV } from '../../src/naming';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { eventually } from '../helpers/eventually';
import { panelQueries } from '../helpers/grafana-queries';
import { bootstrapServers, createAclsInEffect, kafkaAsAdmin, kafkajsAcl, produceAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { startPrometheus } from '../helpers/prometheus';
import type { PrometheusAlert, PrometheusServer } from '../helpers/prometheus';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(300_000);

/**
 * The generated alert rules in a real Prometheus, scraping a real service built on the
 * generated router package and `krt monitor`, both on the real broker. The topology
 * shortens the `for:` of the alerts through its spec, so the test takes seconds.
 */

const id = `e2e-${randomBytes(3).toString('hex')}`;
const RUNBOOKS = 'https://runbooks.example.com/kafka';

const topologySource = `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: '${id}',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: '${RUNBOOKS}',
  cluster: { replicationFactor: 1, minInsyncReplicas: 1 },
  principals: { replay: 'User:orders-replay', monitor: 'User:orders-monitor' },
  consumers: [
    {
      name: '${id}',
      topic: { name: '${id}.orders', partitions: 1 },
      principal: 'User:billing',
      ladder: ['5s'],
      criticality: 'money',
      inPlace: { attempts: 1 },
      errors: { permanent: ['OrderValidationError'] },
      alerts: { dlqBacklog: { for: '5s' }, consumerDown: { for: '5s' }, monitorDown: { for: '5s' } },
    },
  ],
});
`;

function env(user: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    [KAFKA_ENV.bootstrapServers]: bootstrapServers(),
    [KAFKA_ENV.saslUsername]: user,
    [KAFKA_ENV.saslPassword]: passwordOf(user),
    [KAFKA_ENV.ssl]: 'false',
  };
}

function io(cwd: string, user: string): CliIo & { output: () => string } {
  let text = '';
  return { cwd, env: env(user), stdout: (t) => void (text += t), stderr: (t) => void (text += t), output: () => text };
}

/** Topics and ACLs of the test topology, created as the generated Terraform would. */
async function createResources(topology: TopologyModel, consumer: ConsumerModel): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const topics = [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit];
    await createTopicsWithLeaders(admin, topics.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })));
    await createAclsInEffect(admin, {
      acl: aclRules(topology).map(kafkajsAcl),
    });
  } finally {
    await admin.disconnect();
  }
}

/** Spawns a TypeScript entry point with jiti; resolves with the child and the port it prints. */
async function spawnWithPort(what: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exited: string | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', (code) => (exited = `${what} exited (${code}):\n${output}`));
  const port = await eventually(`${what} to serve its metrics`, () => {
    if (exited !== undefined) throw new Error(exited);
    const match = /(?:metrics on |http:\/\/[\d.]+:)(\d+)/.exec(output);
    return match ? Number(match[1]) : undefined;
  }, 60_000);
  return { child, port };
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const named = (alerts: PrometheusAlert[], name: string) => alerts.find((a) => a.labels.alertname === name && a.state === 'firing');

describe('the generated alerts in a real Prometheus, scraping a service and krt monitor on the real broker', () => {
  const project = mkdtempSync(path.join(os.tmpdir(), 'krt-e2e-'));
  let service: ChildProcess | undefined;
  let monitor: ChildProcess | undefined;
  let prometheus: PrometheusServer | undefined;
  let consumer: ConsumerModel;
  /** The monitor principal's ACLs on this topology's topics and groups. */
  let monitorAcls: ReturnType<typeof kafkajsAcl>[];

  beforeAll(async () => {
    mkdirSync(path.join(project, 'topologies'));
    writeFileSync(path.join(project, 'topologies', `${id}.ts`), topologySource);
    const synth = io(project, 'billing');
    expect({ code: await runCli(['synth'], synth), output: synth.output() }).toMatchObject({ code: 0 });
    const { model } = await compileFiles(discoverTopologyFiles(project), project);
    const topology = model!.topologies[0]!;
    consumer = topology.consumers[0]!;
    monitorAcls = aclRules(topology).filter((rule) => rule.principal === 'User:orders-monitor').map(kafkajsAcl);
    await createResources(topology, consumer);

    const jitiAlias = JSON.stringify({ '@kafka-retry-topology/runtime': path.join(REPO_ROOT, 'src', 'runtime', 'index.ts') });
    const started = await Promise.all([
      spawnWithPort('the service', [path.join(__dirname, 'e2e-service.ts')], {
        cwd: REPO_ROOT,
        env: { ...env('billing'), JITI_ALIAS: jitiAlias, E2E_ROUTER: path.join(project, 'generated', 'router', id, 'index.js'), E2E_CONSUMER: id },
      }),
      spawnWithPort('krt monitor', [path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'monitor', '--port', '0', '--host', '127.0.0.1', '--interval', '2s'], {
        cwd: project,
        env: env('orders-monitor'),
      }),
    ]);
    service = started[0].child;
    monitor = started[1].child;
    prometheus = await startPrometheus({
      ruleFiles: [path.join(project, 'generated', 'prometheus', `${id}.rules.yml`)],
      targets: [
        { job: 'service', address: `127.0.0.1:${started[0].port}` },
        { job: 'krt-monitor', address: `127.0.0.1:${started[1].port}` },
      ],
    });
    // Prometheus must have seen the zeros before the failure, as it would in production.
    await eventually('Prometheus to scrape the service\'s counters and the monitor\'s gauges', async () => {
      const [routed, size] = await Promise.all([
        prometheus!.query(`kafka_dlq_routed_total{consumer="${id}"}`),
        prometheus!.query(`kafka_dlq_size{consumer="${id}"}`),
      ]);
      return routed.length > 0 && size.length > 0 ? true : undefined;
    }, 60_000);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await stopProcess(service);
    await stopProcess(monitor);
    rmSync(project, { recursive: true, force: true });
  });

  it('fires KafkaDlqNewMessages for a permanent failure, with the consumer\'s labels and its runbook link', async () => {
    await produceAsAdmin(consumer.mainTopic.name, [{ key: 'order-1', value: 'bad', partition: 0 }]);
    const alert = await eventually('KafkaDlqNewMessages to fire', async () => named(await prometheus!.alerts(), 'KafkaDlqNewMessages'), 90_000);
    expect(alert.labels).toEqual({ alertname: 'KafkaDlqNewMessages', severity: 'critical', team: 'billing', consumer: id, topic: consumer.dlq.name });
    expect(alert.annotations.runbook_url).toBe(`${RUNBOOKS}/${id}.md#kafkadlqnewmessages`);
  });

  it('fires KafkaDlqBacklog from krt monitor\'s gauges while the record is unhandled', async () => {
    const alert = await eventually('KafkaDlqBacklog to fire', async () => named(await prometheus!.alerts(), 'KafkaDlqBacklog'), 90_000);
    expect(alert.labels).toMatchObject({ consumer: id, topic: consumer.dlq.name, severity: 'critical' });
  });

  it('gives series for every panel query of the generated Grafana dashboard while the service runs', async () => {
    // A record in the tier, due in 5s, succeeds: the lateness histogram gets its first sample.
    await produceAsAdmin(consumer.tiers[0]!.name, [{ key: 'order-3', value: 'retry me', partition: 0 }]);
    const dashboard = JSON.parse(readFileSync(path.join(project, 'generated', 'grafana', `${id}.json`), 'utf8')) as Dashboard;
    const queries = panelQueries(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    let empty: string[] = [];
    await eventually('every panel query to return series', async () => {
      const answers = await Promise.all(queries.map(async (q) => ({ q, series: await prometheus!.query(q.expr) })));
      empty = answers.filter((a) => a.series.length === 0).map((a) => `${a.q.source}: ${a.q.expr}`);
      return empty.length === 0 ? true : undefined;
    }, 90_000).catch((error: Error) => {
      throw new Error(`${error.message}; panels without series:\n${empty.join('\n')}`);
    });
  });

  it('fires KafkaRetryConsumerDown when the service stops', async () => {
    await stopProcess(service);
    const alert = await eventually('KafkaRetryConsumerDown to fire', async () => named(await prometheus!.alerts(), 'KafkaRetryConsumerDown'), 90_000);
    expect(alert.labels).toMatchObject({ consumer: id, topic: consumer.mainTopic.name, severity: 'critical', team: 'billing' });
    expect(alert.annotations.runbook_url).toBe(`${RUNBOOKS}/${id}.md#kafkaretryconsumerdown`);
  });

  it('resolves KafkaDlqBacklog once the record is replayed with krt dlq replay', async () => {
    const replay = io(project, 'orders-replay');
    // To the main topic, where krt monitor measures the main lag (the default route is the first tier).
    expect({ code: await runCli(['dlq', 'replay', id, '--all', '--to', 'main-topic', '--yes'], replay), output: replay.output() }).toMatchObject({ code: 0 });
    await eventually('KafkaDlqBacklog to resolve', async () => {
      const alerts = await prometheus!.alerts();
      return alerts.some((a) => a.labels.alertname === 'KafkaDlqBacklog') ? undefined : true;
    }, 90_000);
    // The replayed record waits on the main topic for the stopped service: krt monitor measures that lag.
    const lag = await eventually('the main lag of the replayed record', async () => {
      const [sample] = await prometheus!.query(`kafka_retry_main_lag{consumer="${id}"} > 0`);
      return sample;
    }, 60_000);
    expect(lag.value[1]).toBe('1');
  });

  it('measures how overdue the head record of a tier is while nobody consumes the tier', async () => {
    const tier = consumer.tiers[0]!;
    await produceAsAdmin(tier.name, [{ key: 'order-2', value: 'retry me', partition: 0 }]);
    const overdue = await eventually('the tier head to be overdue', async () => {
      const [sample] = await prometheus!.query(`kafka_retry_tier_overdue_seconds{consumer="${id}",topic="${tier.name}",partition="0"} > 2`);
      return sample;
    }, 60_000);
    expect(Number(overdue.value[1])).toBeLessThan(120);
  });

  it('fires KafkaRetryMonitorDown while the monitor cannot read Kafka (its gauges gone, not frozen), and resolves once it can', async () => {
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      // The monitor principal loses its ACLs: from now on every poll fails.
      await admin.deleteAcls({ filters: monitorAcls });
      const alert = await eventually('KafkaRetryMonitorDown to fire', async () => named(await prometheus!.alerts(), 'KafkaRetryMonitorDown'), 90_000);
      expect(alert.labels).toMatchObject({ consumer: id, topic: consumer.dlq.name, severity: 'critical' });
      await createAclsInEffect(admin, { acl: monitorAcls });
      await eventually('KafkaRetryMonitorDown to resolve', async () => ((await prometheus!.alerts()).some((a) => a.labels.alertname === 'KafkaRetryMonitorDown') ? undefined : true), 90_000);
    } finally {
      await admin.disconnect();
    }
  });
});
