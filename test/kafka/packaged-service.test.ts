import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { passwordOf } from '../../scripts/kafka/broker';
import { spawnChild } from '../helpers/child-process';
import type { Child } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { RUNTIME_PACKAGE } from '../../src/naming';

jest.setTimeout(6 * 60_000);

const run = `packaged-${randomBytes(3).toString('hex')}`;
const work = mkdtempSync(path.join(os.tmpdir(), 'krt-packaged-'));
const service = path.join(work, 'service');
const packages = path.join(service, 'packages');

const RUNTIME_TARBALL = 'kafka-retry-topology-runtime.tgz';
const runtimeManifest = require(path.join(REPO_ROOT, 'packages', 'runtime', 'package.json')) as { dependencies: Record<string, string> };
const generatorManifest = require(path.join(REPO_ROOT, 'package.json')) as { dependencies: Record<string, string> };

const sh = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** `npm pack` of a folder into the service's packages/, under a name without the version. */
function pack(folder: string, as: string): void {
  const file = sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packages], folder).trim().split('\n').pop()!;
  renameSync(path.join(packages, file), path.join(packages, as));
}

/** tsc of one of this repository's packages, the way its build runs, into a staging folder's dist/. */
function compile(tsconfig: string, staging: string): void {
  sh(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', tsconfig, '--outDir', path.join(staging, 'dist')], REPO_ROOT);
}

/** The runtime package as its tarball would be published: dist built fresh, beside its manifest. */
function packRuntime(): void {
  const staging = path.join(work, 'runtime');
  mkdirSync(staging);
  cpSync(path.join(REPO_ROOT, 'packages', 'runtime', 'package.json'), path.join(staging, 'package.json'));
  compile('packages/runtime/tsconfig.json', staging);
  pack(staging, RUNTIME_TARBALL);
}

/** kafka-retry-topology, the generator and CLI, as its tarball would be published. */
function packGenerator(): void {
  const staging = path.join(work, 'kafka-retry-topology');
  mkdirSync(staging);
  for (const file of ['package.json', 'README.md', 'templates', 'examples/scenarios']) cpSync(path.join(REPO_ROOT, file), path.join(staging, file), { recursive: true });
  compile('tsconfig.build.json', staging);
  pack(staging, 'kafka-retry-topology.tgz');
}

/** Every package installed under a folder's node_modules (nested ones too), by name, and their size on disk in bytes. */
function installed(folder: string): { names: string[]; bytes: number } {
  const names = new Set<string>();
  const walk = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@') ? readdirSync(path.join(modules, entry)).map((d) => path.join(modules, entry, d)) : [path.join(modules, entry)];
      for (const dir of dirs) {
        names.add(path.relative(modules, dir));
        walk(path.join(dir, 'node_modules'));
      }
    }
  };
  walk(path.join(folder, 'node_modules'));
  const bytes = Number(sh('du', ['-sbL', path.join(folder, 'node_modules')], folder).split('\t')[0]);
  return { names: [...names].sort(), bytes };
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
  let productionInstall: { names: string[]; bytes: number } | undefined;
  let running: Child | undefined;
  afterAll(async () => {
    running?.process.kill('SIGKILL');
    await running?.exited;
    rmSync(work, { recursive: true, force: true });
  });

  it('installs the router package and the runtime package from their npm pack tarballs, and type-checks', () => {
    cpSync(path.join(REPO_ROOT, 'examples', 'packaged-service'), service, { recursive: true, filter: (f) => !/\/(node_modules|dist|packages)$/.test(f) });
    mkdirSync(packages);
    packRuntime();
    pack(path.join(REPO_ROOT, 'generated', 'router', 'analytics'), 'analytics-retry-router.tgz');
    sh('npm', ['install', '--prefer-offline', '--omit=dev', '--no-audit', '--no-fund'], service);
    // What production holds is measured now; the type-check below needs the dev tools.
    productionInstall = installed(service);
    sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], service);
    expect(sh('npm', ['ls', '--depth=0', '--parseable', '--long'], service)).toMatch(/@kafka-retry-topology\/runtime@0\.1\.0[\s\S]*analytics-retry-router@0\.0\.0/);
    sh('npm', ['run', 'build'], service);
  });

  it('pulls no generator dependency into the service: its production install is the runtime, prom-client, the OpenTelemetry API and its own Kafka client', () => {
    const generatorOnly = Object.keys(generatorManifest.dependencies).filter((name) => !(name in runtimeManifest.dependencies) && name !== 'kafkajs' && name !== RUNTIME_PACKAGE);
    const { names, bytes } = productionInstall!;
    expect(names.filter((name) => generatorOnly.includes(name) || name === 'kafka-retry-topology')).toEqual([]);
    // Not even an optional client the service did not ask for.
    expect(names.filter((name) => ['@confluentinc/kafka-javascript', '@platformatic/kafka'].includes(name))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining([RUNTIME_PACKAGE, 'analytics-retry-router', 'kafkajs', 'prom-client', '@opentelemetry/api']));
    // docs/router-package.md gives the size; a generator dependency alone (cdktf) is tens of megabytes.
    process.stdout.write(`packaged service: ${names.length} production packages, ${(bytes / 1e6).toFixed(1)} MB in node_modules\n`);
    expect(bytes).toBeLessThan(8e6);
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
    // Both packages would come from the registry; here, their packed tarballs. The root runs
    // krt synth (kafka-retry-topology, a dev dependency); the service depends on the runtime,
    // installed at the root, where the generated package finds it (its peer dependency).
    packGenerator();
    const runtime = `file:${path.join(packages, RUNTIME_TARBALL)}`;
    const generator = `file:${path.join(packages, 'kafka-retry-topology.tgz')}`;
    write(path.join(monorepo, 'package.json'), {
      name: 'monorepo',
      private: true,
      workspaces: ['services/*', 'generated/router/*'],
      devDependencies: { 'kafka-retry-topology': generator },
      // Stands in for the registry the generator's own dependency on the runtime would reach.
      overrides: { [RUNTIME_PACKAGE]: runtime },
    });
    write(path.join(analytics, 'package.json'), { ...manifest, name: 'analytics', dependencies: { ...manifest.dependencies, 'analytics-retry-router': '*', [RUNTIME_PACKAGE]: runtime } });
    sh('npm', ['install', '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund'], monorepo);
    sh('npm', ['run', 'build', '--workspace', 'services/analytics'], monorepo);
    const resolved = sh(process.execPath, ['-e', "console.log(require('analytics-retry-router').analyticsOrders.dlqTopic)"], analytics);
    expect(resolved).toBe('orders.confirmed.analytics-orders.dlq\n');
  });
});
