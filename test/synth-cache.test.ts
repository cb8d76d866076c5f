import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, STORE_DIR } from '../src/cache/synth-cache';
import { fileTree, REPO_ROOT, ScratchProject } from './helpers/project';
import { topologySource } from './helpers/topology-source';

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
});
afterEach(() => project.remove());


/** Every record file of the cache. */
const recordFiles = () =>
  readdirSync(project.path(STORE_DIR), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
const REUSED_BOTH = '2 of 2 topologies unchanged, reused from the cache';
const REUSED_ONE = '1 of 2 topologies unchanged, reused from the cache';


/** What a synth without any cache makes of the same topologies: the reference every cached synth must equal. */
/**
 * `krt synth` as a user runs it: a process of its own (the built CLI). In jest's process a
 * topology's plain .js import is loaded through jest's module registry, which under
 * --experimental-vm-modules (npm test's Node 24 line) keeps it from one in-process run to
 * the next, a staleness no user process has.
 */
function synthInAProcess(project: ScratchProject): void {
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'synth'], { cwd: project.path('.'), encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
}

async function coldSynthOf(source: ScratchProject): Promise<Record<string, string>> {
  const cold = new ScratchProject(false);
  try {
    cpSync(source.path('topologies'), cold.path('topologies'), { recursive: true });
    cpSync(source.path('generated'), cold.path('generated'), { recursive: true });
    if (existsSync(source.path('lib'))) cpSync(source.path('lib'), cold.path('lib'), { recursive: true });
    const result = await cold.krt('synth', '--no-cache');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return fileTree(cold.path('generated'));
  } finally {
    cold.remove();
  }
}

describe('incremental krt synth', () => {
  it('reuses every topology whose inputs did not change and writes nothing', async () => {
    const first = await project.krt('synth');
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain('reused from the cache');

    const second = await project.krt('synth');
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(second.stdout).toContain('0 files written');
    expect(second.stdout).toContain(REUSED_BOTH);
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stdout: 'ok: generated/ is up to date with 2 topologies, 2 consumers\n' });
  });

  it('rebuilds the topology whose spec changed, reuses the other, and ends with what a synth without cache writes', async () => {
    await project.krt('synth');
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '10m', '1h', '6h']");

    const check = await project.krt('synth', '--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('differs generated/terraform/orders/cdk.tf.json\n');
    expect(check.stderr).not.toContain('analytics');

    const result = await project.krt('synth');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('wrote   generated/terraform/orders/cdk.tf.json\n');
    expect(result.stdout).toContain(REUSED_ONE);
    expect(fileTree(project.path('generated'))).toEqual(await coldSynthOf(project));
  });

  it('reports a hand-edited generated file with --check although its topology is cached, and synth restores it', async () => {
    await project.krt('synth');
    const original = project.read('generated/terraform/orders/cdk.tf.json');
    // Fewer partitions by hand: putting 12 back only adds partitions (more would be a shrink, refused).
    project.edit('generated/terraform/orders/cdk.tf.json', '"partitions": 12', '"partitions": 6');

    const check = await project.krt('synth', '--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toBe('differs generated/terraform/orders/cdk.tf.json\n1 file out of date: run `krt synth` and commit the result\n');

    const result = await project.krt('synth');
    expect(result.stdout).toContain('wrote   generated/terraform/orders/cdk.tf.json\n');
    expect(result.stdout).toContain(REUSED_ONE);
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toBe(original);
  });

  it('reports a generated file edited in place to the same size with its modification time put back, after runs that trusted its status', async () => {
    await project.krt('synth');
    const file = project.path('generated/terraform/orders/cdk.tf.json');
    const [time, size] = [1_700_000_000, statSync(file).size];
    utimesSync(file, time, time);
    // Past the window in which a file's status may not show a change, then twice: the second run trusts the status the first recorded.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await project.krt('synth');
    expect((await project.krt('synth')).stdout).toContain(REUSED_BOTH);
    project.edit('generated/terraform/orders/cdk.tf.json', '"partitions": 12', '"partitions": 24');
    utimesSync(file, time, time);
    expect(statSync(file)).toMatchObject({ size, mtimeMs: time * 1000 });

    const check = await project.krt('synth', '--check');
    expect(check.stderr).toBe('differs generated/terraform/orders/cdk.tf.json\n1 file out of date: run `krt synth` and commit the result\n');
  });

  it('reports a deleted generated file with --check although its topology is cached, and synth writes it again', async () => {
    await project.krt('synth');
    const original = project.read('generated/runbooks/analytics-orders.md');
    rmSync(project.path('generated/runbooks/analytics-orders.md'));

    const check = await project.krt('synth', '--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('missing generated/runbooks/analytics-orders.md\n');

    const result = await project.krt('synth');
    expect(result.stdout).toContain('wrote   generated/runbooks/analytics-orders.md\n');
    expect(project.read('generated/runbooks/analytics-orders.md')).toBe(original);
  });

  it('reports a hand-edited runbook index, the one file that reads every topology', async () => {
    await project.krt('synth');
    project.write('generated/runbooks/README.md', `${project.read('generated/runbooks/README.md')}\nextra\n`);
    const check = await project.krt('synth', '--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('differs generated/runbooks/README.md\n');
  });

  it('ignores damaged records, even one damaged to other valid JSON', async () => {
    await project.krt('synth');
    expect(recordFiles().length).toBeGreaterThan(0);
    const damage = () => recordFiles().forEach((file) => writeFileSync(file, `${readFileSync(file, 'utf8').slice(0, -2)}\n`));
    damage();
    const rebuilt = await project.krt('synth');
    expect(rebuilt).toMatchObject({ code: 0, stderr: '' });
    expect(rebuilt.stdout).not.toContain('reused from the cache');
    expect((await project.krt('synth')).stdout).toContain(REUSED_BOTH);
    damage();
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stdout: 'ok: generated/ is up to date with 2 topologies, 2 consumers\n' });
  });

  it('ignores a record of the wrong shape whose checksum is right', async () => {
    await project.krt('synth');
    for (const file of recordFiles()) {
      const body = JSON.stringify({ topology: [], model: 1, outputs: 'x', imports: 3 });
      writeFileSync(file, `${createHash('sha256').update(body).digest('hex')}\n${body}`);
    }
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stdout: 'ok: generated/ is up to date with 2 topologies, 2 consumers\n' });
    expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  });

  it('with --no-cache neither reads nor writes the cache', async () => {
    const result = await project.krt('synth', '--no-cache');
    expect(result.code).toBe(0);
    expect(existsSync(project.path(CACHE_DIR))).toBe(false);
  });

  it('rebuilds a topology when a local module it imports changes', async () => {
    mkdirSync(project.path('lib'));
    project.write('lib/owner.ts', "export const billing = { team: 'billing', onCall: '#billing-oncall' };\n");
    project.edit('topologies/orders.ts', "owner: { team: 'billing', onCall: '#billing-oncall' }", 'owner: billing');
    project.edit('topologies/orders.ts', "import { defineTopology } from 'kafka-retry-topology';", "import { defineTopology } from 'kafka-retry-topology';\nimport { billing } from '../lib/owner';");
    expect((await project.krt('synth')).code).toBe(0);
    expect((await project.krt('synth')).stdout).toContain(REUSED_BOTH);

    project.edit('lib/owner.ts', "team: 'billing'", "team: 'payments'");
    const result = await project.krt('synth');
    expect(result.stdout).toContain(REUSED_ONE);
    expect(project.read('generated/prometheus/orders.rules.yml')).toContain('team: payments');
    expect(fileTree(project.path('generated'))).toEqual(await coldSynthOf(project));
  });

  it('rebuilds a topology whose imported module has a .js twin beside its .ts, whichever of the two the loader picks', async () => {
    mkdirSync(project.path('lib'));
    project.write('lib/owner.ts', "export const billing = { team: 'from-ts', onCall: '#billing-oncall' };\n");
    project.edit('topologies/orders.ts', "owner: { team: 'billing', onCall: '#billing-oncall' }", 'owner: billing');
    project.edit('topologies/orders.ts', "import { defineTopology } from 'kafka-retry-topology';", "import { defineTopology } from 'kafka-retry-topology';\nimport { billing } from '../lib/owner';");
    expect((await project.krt('synth')).code).toBe(0);

    project.write('lib/owner.js', "exports.billing = { team: 'from-js', onCall: '#billing-oncall' };\n");
    synthInAProcess(project);
    expect(fileTree(project.path('generated'))).toEqual(await coldSynthOf(project));
    project.write('lib/owner.js', "exports.billing = { team: 'from-js-edited', onCall: '#billing-oncall' };\n");
    synthInAProcess(project);
    expect(fileTree(project.path('generated'))).toEqual(await coldSynthOf(project));
  });

  it('rebuilds a topology whose spec reads a file that changed, whatever it imports (every topology file is loaded on every run)', async () => {
    project.write('team.txt', 'billing\n');
    project.edit('topologies/orders.ts', "owner: { team: 'billing',", "owner: { team: readFileSync(`${__dirname}/../team.txt`, 'utf8').trim(),");
    project.edit('topologies/orders.ts', "import { defineTopology } from 'kafka-retry-topology';", "import { defineTopology } from 'kafka-retry-topology';\nconst { readFileSync } = require('fs');");
    expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
    project.write('team.txt', 'payments\n');
    const result = await project.krt('synth');
    expect(result.stdout).toContain(REUSED_ONE);
    expect(project.read('generated/prometheus/orders.rules.yml')).toContain('team: payments');
  });

  it('still reports a name that collides with an unchanged, cached topology', async () => {
    await project.krt('synth');
    project.write('topologies/orders-copy.ts', project.read('topologies/orders.ts').replace("name: 'orders',", "name: 'orders-copy',"));
    const result = await project.krt('synth');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("error topologies/orders.ts: consumers[0].name: consumer 'billing-order-confirmed' is already defined at topologies/orders-copy.ts");
  });

  it('still refuses to remove a consumer of a cached topology without decommissioning it', async () => {
    await project.krt('synth');
    rmSync(project.path('topologies/analytics.ts'));
    const result = await project.krt('synth');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("consumer 'analytics-orders' was removed");
  });

  describe('keeps every topology file its own entries', () => {
    const REUSED_ALL = '4 of 4 topologies unchanged, reused from the cache';
    beforeEach(() => {
      for (const name of ['payments', 'shipping']) project.write(`topologies/${name}.ts`, topologySource(name, 2));
    });

    it('after a synth of one file into another folder', async () => {
      await project.krt('synth');
      expect(await project.krt('synth', 'topologies/payments.ts', '--out', 'single')).toMatchObject({ code: 0, stderr: '' });
      const full = await project.krt('synth');
      expect(full.stdout).toContain('0 files written');
      expect(full.stdout).toContain(REUSED_ALL);
    });

    it('after a synth of everything into another folder', async () => {
      await project.krt('synth');
      project.edit('topologies/payments.ts', "onCall: '#payments'", "onCall: '#payments-2'");
      expect(await project.krt('synth', '--out', 'elsewhere')).toMatchObject({ code: 0, stderr: '' });
      project.edit('topologies/payments.ts', "onCall: '#payments-2'", "onCall: '#payments'");
      expect((await project.krt('synth')).stdout).toContain(REUSED_ALL);
    });

    it('after a refused synth, which rebuilds only the topology that changed when run again', async () => {
      await project.krt('synth');
      project.edit('topologies/payments.ts', "onCall: '#payments'", "onCall: '#payments-2'");
      rmSync(project.path('topologies/analytics.ts'));
      expect((await project.krt('synth')).code).toBe(1);
      cpSync(path.join(REPO_ROOT, 'topologies', 'analytics.ts'), project.path('topologies/analytics.ts'));
      const result = await project.krt('synth');
      expect(result.stdout).toContain('3 of 4 topologies unchanged, reused from the cache');
      expect(fileTree(project.path('generated'))).toEqual(await coldSynthOf(project));
    });
  });
});
