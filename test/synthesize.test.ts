import { readdirSync } from 'node:fs';
import { synthesize } from '../src/synth/synthesize';
import { discoverTopologyFiles } from '../src/load/load-topologies';
import { ScratchProject } from './helpers/project';

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
});
afterEach(() => project.remove());

const request = (overrides: Partial<Parameters<typeof synthesize>[0]> = {}) => ({
  cwd: project.dir,
  files: discoverTopologyFiles(project.dir),
  someFiles: false,
  outDir: project.path('generated'),
  check: false,
  ...overrides,
});

describe('synthesize, the library call behind krt synth', () => {
  it('finds the committed output up to date and changes nothing when checking', async () => {
    const result = await synthesize(request({ check: true }));
    expect(result.kind).toBe('done');
    if (result.kind === 'done') expect(result.summary.drift).toEqual([]);
  });

  it('returns the spec errors, and writes nothing, when a topology does not validate', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', 'ten minutes', '1h']");
    const before = readdirSync(project.path('generated'), { recursive: true }).length;
    const result = await synthesize(request());
    expect(result.kind).toBe('invalid');
    expect(result.compiled.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(readdirSync(project.path('generated'), { recursive: true })).toHaveLength(before);
  });

  it('returns the refusal, and writes nothing, when a delay change would delete a tier topic with its records', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '15m', '1h']");
    const result = await synthesize(request());
    expect(result.kind).toBe('refused');
    if (result.kind === 'refused') expect(result.refusals.map((d) => d.message).join('\n')).toContain("would delete 'orders.confirmed.retry.10m'");
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('retry.10m');
  });

  it('returns what it wrote after an on-call channel changes, printing nothing itself', async () => {
    project.edit('topologies/orders.ts', "onCall: '#billing-oncall'", "onCall: '#billing-pager'");
    const log = jest.spyOn(process.stdout, 'write');
    const result = await synthesize(request());
    expect(log).not.toHaveBeenCalled();
    log.mockRestore();
    expect(result.kind).toBe('done');
    if (result.kind === 'done') expect(result.summary.written).toContain('runbooks/billing-order-confirmed.md');
    expect(project.read('generated/runbooks/billing-order-confirmed.md')).toContain('#billing-pager');
  });
});
