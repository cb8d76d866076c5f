import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SNAPSHOT_VERSION } from '../src/writer/model-snapshot';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * `cdktf deploy` applies what `krt cdktf` builds into $CDKTF_OUTDIR. It builds only what
 * `krt synth` wrote (byte for byte) and its guards accepted, and judges the committed
 * output against what it built last, so neither two deploys in a row without a synth nor a
 * git revert of deployed output can delete a topic that holds records. (Regressions of
 * the findings eeab02f and 9091502: the guard used to read the committed snapshot only.)
 */
describe('krt cdktf builds only what krt synth wrote, judged against what it built last', () => {
  let project: ScratchProject;
  let outDir: string;
  const saved = process.env.CDKTF_OUTDIR;
  beforeEach(() => {
    project = new ScratchProject();
    outDir = mkdtempSync(path.join(os.tmpdir(), 'krt-attack-cdktf-deploys-'));
    process.env.CDKTF_OUTDIR = outDir;
  });
  afterEach(() => {
    project.remove();
    rmSync(outDir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });

  const builtTopics = (stack = 'orders') => {
    const file = path.join(outDir, 'stacks', stack, 'cdk.tf.json');
    if (!existsSync(file)) return undefined;
    const json = JSON.parse(readFileSync(file, 'utf8')) as { resource?: { kafka_topic?: Record<string, { name: string }> } };
    return Object.values(json.resource?.kafka_topic ?? {}).map((t) => t.name).sort();
  };

  const shipping = `
    {
      name: 'shipping',
      topic: { name: 'orders.shipped', partitions: 12 },
      principal: 'User:shipping',
      ladder: ['1m'],
    },
  ],`;

  it('builds no stack for a consumer added to the spec without krt synth, so cdktf cannot deploy it and then delete it', async () => {
    const original = project.read('topologies/orders.ts');
    project.edit('topologies/orders.ts', '\n  ],', shipping);
    const first = await project.krt('cdktf');
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('krt cdktf builds only what krt synth wrote');
    expect(first.stderr).toContain('run `krt synth`');
    expect(builtTopics()).toBeUndefined(); // nothing for cdktf deploy to create

    project.write('topologies/orders.ts', original); // the consumer taken out again
    const second = await project.krt('cdktf');
    expect(second.code).toBe(0);
    expect(builtTopics()).not.toContain('orders.shipped.dlq');
  });

  // A git revert restores the spec and generated/ together, so they agree, while the state
  // of 'analytics' holds the topics the move imported: building 'analytics' without them
  // and without a removed block would delete them.
  it('refuses to build the stacks of a reverted move that cdktf deployed', async () => {
    project.edit('topologies/orders.ts', '\n  ],', shipping);
    expect((await project.krt('synth')).code).toBe(0);
    cpSync(project.path('topologies'), `${project.dir}-topologies`, { recursive: true });
    cpSync(project.path('generated'), `${project.dir}-generated`, { recursive: true });

    // The move, declared, synthesized and deployed: 'analytics' imports the topics.
    const moved = shipping.replace("name: 'shipping',", "name: 'shipping',\n      previousTopology: 'orders',");
    project.write('topologies/orders.ts', project.read('topologies/orders.ts').replace(shipping, '\n  ],'));
    project.edit('topologies/analytics.ts', '\n  ],', moved);
    expect((await project.krt('synth')).code).toBe(0);
    expect((await project.krt('cdktf')).code).toBe(0);
    expect(builtTopics('analytics')).toContain('orders.shipped.dlq');

    // git revert of that commit: spec and generated/ as they were before the move.
    for (const dir of ['topologies', 'generated']) {
      rmSync(project.path(dir), { recursive: true, force: true });
      cpSync(`${project.dir}-${dir}`, project.path(dir), { recursive: true });
      rmSync(`${project.dir}-${dir}`, { recursive: true, force: true });
    }
    const reverted = await project.krt('cdktf');
    expect(reverted.stderr).toContain('judges the committed output against what it built last');
    expect({ code: reverted.code, analyticsKeepsIt: builtTopics('analytics')?.includes('orders.shipped.dlq') ?? true }).toEqual({ code: 1, analyticsKeepsIt: true });
  });

  it('builds nothing when what it built last was written by a newer krt, and says how to go on', async () => {
    writeFileSync(path.join(outDir, '.krt-model.json'), `${JSON.stringify({ version: SNAPSHOT_VERSION + 1, topologies: [] })}\n`);
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain('what it built last (');
    expect(cdktf.stderr).toContain(`was written by a newer krt (snapshot version ${SNAPSHOT_VERSION + 1})`);
    expect(cdktf.stderr).toContain('delete');
    expect(builtTopics()).toBeUndefined();
  });

  it('refuses the removal of a synthesized consumer, saying what krt synth would say of it', async () => {
    const original = project.read('topologies/orders.ts');
    project.edit('topologies/orders.ts', '\n  ],', shipping);
    expect((await project.krt('synth')).code).toBe(0);
    project.write('topologies/orders.ts', original);
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain('orders.shipped.dlq');
  });
});
