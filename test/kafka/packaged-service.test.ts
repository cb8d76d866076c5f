import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { passwordOf } from '../../scripts/kafka/broker';
import { spawnChild } from '../helpers/child-process';
import type { Child } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(6 * 60_000);

const run = `packaged-${randomBytes(3).toString('hex')}`;
const work = mkdtempSync(path.join(os.tmpdir(), 'krt-packaged-'));
const service = path.join(work, 'service');
const packages = path.join(service, 'packages');

const sh = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** `npm pack` of a folder into the service's packages/, under a name without the version. */
function pack(folder: string, as: string): void {
  const file = sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packages], folder).trim().split('\n').pop()!;
  renameSync(path.join(packages, file), path.join(packages, as));
}

/** kafka-retry-topology as its tarball would be published: dist built fresh, beside the package's files. */
function packRuntime(): void {
  const staging = path.join(work, 'kafka-retry-topology');
  mkdirSync(staging);
  for (const file of ['package.json', 'README.md', 'templates', 'examples/scenarios']) cpSync(path.join(REPO_ROOT, file), path.join(staging, file), { recursive: true });
  sh(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(staging, 'dist')], REPO_ROOT);
  pack(staging, 'kafka-retry-topology.tgz');
}

/** The DLQ records whose value starts with this run's marker, read by the admin. */
async function deadLetters(topic: string): Promise<{ value: string; headers: Record<string, string> }[]> {
  const consumer = kafkaAsAdmin().consumer({ groupId: `${run}-reader` });
  const found: { value: string; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const value = message.value?.toString() ?? '';
      if (value.startsWith(run)) found.push({ value, headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])) });
    },
  });
  try {
    await eventually(`the unparsable record in ${topic}`, () => (found.length > 0 ? found : undefined), 60_000);
    return found;
  } finally {
    await consumer.disconnect();
  }
}

describe('a service outside the root package, on the generated router package (examples/packaged-service)', () => {
  let running: Child | undefined;
  afterAll(async () => {
    running?.process.kill('SIGKILL');
    await running?.exited;
    rmSync(work, { recursive: true, force: true });
  });

  it('installs the router package and kafka-retry-topology from their npm pack tarballs, and type-checks', () => {
    cpSync(path.join(REPO_ROOT, 'examples', 'packaged-service'), service, { recursive: true, filter: (f) => !/\/(node_modules|dist|packages)$/.test(f) });
    mkdirSync(packages);
    packRuntime();
    pack(path.join(REPO_ROOT, 'generated', 'router', 'analytics'), 'analytics-retry-router.tgz');
    // The Confluent client is optional; this service runs on kafkajs and does not build it.
    sh('npm', ['install', '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund'], service);
    expect(sh('npm', ['ls', '--depth=0', '--parseable', '--long'], service)).toMatch(/analytics-retry-router@0\.0\.0[\s\S]*kafka-retry-topology@\d/);
    sh('npm', ['run', 'build'], service);
  });

  it('handles a record from the main topic, and sends one it cannot parse to the DLQ with its headers', async () => {
    running = spawnChild(process.execPath, [path.join(service, 'dist', 'main.js')], {
      cwd: service,
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: 'analytics', KAFKA_SASL_PASSWORD: passwordOf('analytics'), KAFKA_SSL: 'false' },
    });
    const child = running;
    await produceAsAdmin('orders.confirmed', [
      { key: `${run}-1`, value: JSON.stringify({ orderId: `${run}-1` }), partition: 0 },
      { key: `${run}-2`, value: `${run}-2 is not JSON`, partition: 0 },
    ]);
    await eventually('the service to handle the first record', () => {
      child.assertRunning('the packaged service');
      return child.stdout().includes(`handled ${run}-1\n`) ? true : undefined;
    }, 90_000);
    const [dead] = await deadLetters('orders.confirmed.analytics-orders.dlq');
    expect(dead!.value).toBe(`${run}-2 is not JSON`);
    expect(dead!.headers).toMatchObject({ 'x-error-class': 'SyntaxError', 'x-original-topic': 'orders.confirmed', 'x-attempt': '1' });
    expect(child.stdout()).toMatch(/routed orders\.confirmed@\d+ to orders\.confirmed\.analytics-orders\.dlq\n/);
  });

  it('in a monorepo, installs the generated folder as an npm workspace, where it finds the runtime', () => {
    const monorepo = path.join(work, 'monorepo');
    const analytics = path.join(monorepo, 'services', 'analytics');
    cpSync(path.join(REPO_ROOT, 'generated', 'router', 'analytics'), path.join(monorepo, 'generated', 'router', 'analytics'), { recursive: true });
    for (const file of ['src', 'tsconfig.json']) cpSync(path.join(service, file), path.join(analytics, file), { recursive: true });
    const manifest = require(path.join(service, 'package.json'));
    const write = (file: string, json: unknown) => writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    // kafka-retry-topology would come from the registry; here, its packed tarball. The root
    // depends on it too (it runs krt synth), which is where the generated package finds it.
    const runtime = `file:${path.join(packages, 'kafka-retry-topology.tgz')}`;
    write(path.join(monorepo, 'package.json'), { name: 'monorepo', private: true, workspaces: ['services/*', 'generated/router/*'], devDependencies: { 'kafka-retry-topology': runtime } });
    write(path.join(analytics, 'package.json'), { ...manifest, name: 'analytics', dependencies: { ...manifest.dependencies, 'analytics-retry-router': '*', 'kafka-retry-topology': runtime } });
    sh('npm', ['install', '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund'], monorepo);
    sh('npm', ['run', 'build', '--workspace', 'services/analytics'], monorepo);
    const resolved = sh(process.execPath, ['-e', "console.log(require('analytics-retry-router').analyticsOrders.dlqTopic)"], analytics);
    expect(resolved).toBe('orders.confirmed.analytics-orders.dlq\n');
  });
});
