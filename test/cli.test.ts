import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ScratchProject } from './helpers/project';

jest.setTimeout(30_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
});
afterEach(() => project.remove());

const listFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

describe('krt synth --check', () => {
  it('passes on the committed generated output', async () => {
    const result = await project.krt('synth', '--check');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('ok: generated/ is up to date with 2 topologies, 2 consumers\n');
  });

  it('fails after a delay changes in topologies/orders.ts and names every stale file', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '15m', '1h']");
    const result = await project.krt('synth', '--check');
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'differs generated/grafana/orders.json',
      'differs generated/prometheus/orders.rules.test.yml',
      'differs generated/prometheus/orders.rules.yml',
      'differs generated/router/orders/index.d.ts',
      'differs generated/router/orders/index.js',
      'differs generated/runbooks/billing-order-confirmed.md',
      'differs generated/terraform/orders/cdk.tf.json',
      'differs generated/.krt-model.json',
      '8 files out of date: run `krt synth` and commit the result',
      '',
    ]);
  });

  it('names missing and stale files too', async () => {
    project.write('generated/.krt-manifest', `${project.read('generated/.krt-manifest')}terraform/old/cdk.tf.json\n`);
    mkdirSync(project.path('generated/terraform/old'));
    writeFileSync(project.path('generated/terraform/old/cdk.tf.json'), '{}');
    project.edit('generated/.krt-manifest', 'terraform/old/cdk.tf.json\n', 'terraform/old/cdk.tf.json\n');
    const result = await project.krt('synth', '--check');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('differs generated/.krt-manifest\n');
    expect(result.stderr).toContain('stale   generated/terraform/old/cdk.tf.json\n');
  });

  it('writes nothing', async () => {
    project.edit('topologies/orders.ts', "'10m'", "'15m'");
    const before = project.read('generated/terraform/orders/cdk.tf.json');
    await project.krt('synth', '--check');
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toBe(before);
  });
});

describe('krt synth', () => {
  it('reproduces the committed output byte for byte in an empty folder', async () => {
    const result = await project.krt('synth', '--out', 'fresh');
    expect(result.code).toBe(0);
    const fresh = listFiles(project.path('fresh'));
    expect(fresh).toEqual(listFiles(project.path('generated')));
    for (const file of fresh) expect(project.read(path.join('fresh', file))).toBe(project.read(path.join('generated', file)));
  });

  it('rewrites only what changed and reports it', async () => {
    project.edit('topologies/orders.ts', "'10m', '1h'],", "'15m', '1h'], retired: ['10m'],");
    const result = await project.krt('synth');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('wrote   generated/terraform/orders/cdk.tf.json\n');
    expect(result.stdout).not.toContain('analytics');
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('orders.confirmed.retry.15m');
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });

  it('removes the output of a topology that is gone but its stack, kept empty so that applying it deletes what its state holds, and leaves Terraform state alone', async () => {
    writeFileSync(project.path('generated/terraform/analytics/terraform.tfstate'), '{}');
    project.edit('topologies/analytics.ts', "name: 'analytics-orders',", "name: 'analytics-orders', decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    expect(JSON.parse(project.read('generated/terraform/analytics/cdk.tf.json'))).not.toHaveProperty('resource');
    expect(existsSync(project.path('generated/terraform/analytics/terraform.tfstate'))).toBe(true);
    expect(project.read('generated/.krt-manifest').split('\n').filter((line) => line.includes('analytics'))).toEqual(['terraform/analytics/cdk.tf.json']);
  });

  it('refuses to write into a folder it did not make', async () => {
    mkdirSync(project.path('docs'));
    writeFileSync(project.path('docs/notes.md'), 'mine');
    const result = await project.krt('synth', '--out', 'docs');
    expect(result.code).toBe(2); // a usage error: --out names a folder that is not krt's
    expect(result.stderr).toMatch(/docs is not empty and has no \.krt-manifest/);
    expect(listFiles(project.path('docs'))).toEqual(['notes.md']);
  });

  it('writes nothing when a spec has an error', async () => {
    project.edit('topologies/orders.ts', "principal: 'User:billing'", "principal: 'billing'");
    const result = await project.krt('synth', '--out', 'fresh');
    expect(result.code).toBe(1);
    expect(existsSync(project.path('fresh'))).toBe(false);
  });
});

describe('krt validate', () => {
  it('says the examples are valid', async () => {
    expect(await project.krt('validate')).toEqual({ code: 0, stdout: 'ok: 2 topologies, 2 consumers valid\n', stderr: '' });
  });

  it('prints every mistake of a spec with its path, exits 1 and writes nothing', async () => {
    project.write(
      'topologies/broken.ts',
      `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'broken',
  owner: { team: 'x', onCall: 'y' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{
    name: 'broken-consumer',
    topic: { name: 'orders.confirmed', partitions: 12 },
    principal: 'broken',
    ladder: ['10m', '1m'],
    dlq: { retention: '2d', partitions: 4 },
    criticality: 'urgent' as never,
  }],
});
`,
    );
    const before = listFiles(project.dir);
    const result = await project.krt('validate');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      "error topologies/broken.ts: consumers[0].criticality: 'urgent' is not a known criticality; use one of 'money', 'standard', 'analytics'",
      "error topologies/broken.ts: consumers[0].dlq.partitions: the DLQ has 4 partitions, fewer than the 12 of orders.confirmed; give it at least 12 so a replay lands on the record's partition (R4)",
      'error topologies/broken.ts: consumers[0].dlq.retention: a DLQ retention of 2d deletes dead letters before anyone can look at them; set it to at least 7d (R5), 28d is usual',
      "error topologies/broken.ts: consumers[0].ladder[1]: tier 1m is shorter than the tier before it (10m); list the ladder's delays in strictly increasing order",
      "error topologies/broken.ts: consumers[0].principal: 'broken' is not a principal: write it as 'User:name', e.g. 'User:billing'",
      "error topologies/broken.ts: consumers[0].retryTopicBase: topics 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1m', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' of consumer 'broken-consumer' are also generated for consumer 'billing-order-confirmed' (topologies/orders.ts consumers[0]); retry and DLQ topics belong to one consumer (R2), so give one of them its own stem, e.g. here retryTopicBase: 'orders.confirmed.broken-consumer'",
      "error topologies/orders.ts: consumers[0].retryTopicBase: topics 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1m', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' of consumer 'billing-order-confirmed' are also generated for consumer 'broken-consumer' (topologies/broken.ts consumers[0]); retry and DLQ topics belong to one consumer (R2), so give one of them its own stem, e.g. here retryTopicBase: 'orders.confirmed.billing-order-confirmed'",
      '7 errors: nothing was written',
      '',
    ]);
    expect(listFiles(project.dir)).toEqual(before);
  });

  it('reports cross-field mistakes of every consumer that parses', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['10m', '1m'], dlq: { retention: '2d', partitions: 4 }");
    const result = await project.krt('validate', 'topologies/orders.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error topologies/orders.ts: consumers[0].dlq.partitions: the DLQ has 4 partitions');
    expect(result.stderr).toContain('error topologies/orders.ts: consumers[0].dlq.retention: a DLQ retention of 2d');
    expect(result.stderr).toContain('error topologies/orders.ts: consumers[0].ladder[1]: tier 1m is shorter');
    expect(result.stderr).toContain('3 errors: nothing was written');
  });

  it('reports a collision between topology files with the fix', async () => {
    project.edit('topologies/analytics.ts', "retryTopicBase: 'orders.confirmed.analytics-orders',", '');
    const result = await project.krt('validate');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("e.g. here retryTopicBase: 'orders.confirmed.analytics-orders'");
    expect(result.stderr).toContain("e.g. here retryTopicBase: 'orders.confirmed.billing-order-confirmed'");
  });

  it('explains a file that does not load', async () => {
    project.write('topologies/typo.ts', 'export default defineTopology({});\n');
    const result = await project.krt('validate');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error topologies/typo.ts: the file could not be loaded: ReferenceError: defineTopology is not defined; fix the TypeScript so that it runs');
  });

  it('explains a file without a default export', async () => {
    project.write('topologies/empty.ts', 'export const x = 1;\n');
    const result = await project.krt('validate');
    expect(result.stderr).toContain('error topologies/empty.ts: the file has no default export');
  });
});

describe('usage', () => {
  it.each([['--help'], ['validate', '--help'], ['synth', '--help']])('prints help for %s and exits 0', async (...args) => {
    const result = await project.krt(...args);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: krt/);
  });

  it('exits 2 on an unknown option', async () => {
    const result = await project.krt('synth', '--frobnicate');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--frobnicate'");
  });

  it('exits 2 on an unknown command', async () => {
    expect((await project.krt('deploy')).code).toBe(2);
  });

  it('exits 2 when a named file does not exist', async () => {
    const result = await project.krt('validate', 'topologies/nope.ts');
    expect(result).toMatchObject({ code: 2, stderr: 'krt: no such topology file: topologies/nope.ts\n' });
  });

  it('exits 1 when there is no topology at all', async () => {
    const empty = new ScratchProject(false);
    try {
      const result = await empty.krt('validate');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('no topology files found');
    } finally {
      empty.remove();
    }
  });
});
