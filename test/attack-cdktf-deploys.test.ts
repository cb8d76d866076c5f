import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * Attack on `krt cdktf` (src/cli/cdktf-command.ts): the app `cdktf deploy` runs judges the
 * spec against the committed snapshot in generated/, never against what the last
 * `cdktf deploy` built and applied. The workflow the brief names is "edit the spec, run
 * cdktf deploy", and nothing stops two deploys in a row without `krt synth` between them:
 * a consumer added and deployed, then taken out of the spec again, is judged as "no
 * change" against a snapshot that never had it, and the second deploy deletes its DLQ and
 * tiers with every record. cdktf keeps the stacks it last built in $CDKTF_OUTDIR
 * (cdktf.out/stacks/<stack>/cdk.tf.json): those are what the state holds.
 */
describe('cdktf deploys judged against the tree\'s own snapshot, not against what cdktf deployed', () => {
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

  // Defect: krt cdktf judges against generated/.krt-model.json only; the stacks it built
  // last time ($CDKTF_OUTDIR), which cdktf deploy applied, are never read, so a consumer
  // deployed before its synth can be deleted by the next deploy, undecommissioned.
  it.failing('refuses to build a stack that drops the DLQ of a consumer the previous cdktf build deployed', async () => {
    const original = project.read('topologies/orders.ts');
    project.edit('topologies/orders.ts', '\n  ],', shipping);
    const first = await project.krt('cdktf');
    expect(first.code).toBe(0);
    expect(builtTopics()).toContain('orders.shipped.dlq'); // cdktf deploy creates it; dead letters arrive

    project.write('topologies/orders.ts', original); // the consumer taken out again, not decommissioned
    const second = await project.krt('cdktf');
    // What krt synth would say of that edit had it seen the deploy: removed without decommissioned.
    expect({ code: second.code, stillBuilt: builtTopics()?.includes('orders.shipped.dlq') ?? true }).toEqual({ code: 1, stillBuilt: true });
  });

  // The same defect, reached by `git revert` of a move that was deployed: the revert
  // restores the spec and generated/ together, so against the tree's own snapshot nothing
  // changes, while the state of 'analytics' holds the topics the move imported. Its next
  // deploy builds 'analytics' without them and without a removed block: Terraform deletes
  // them (the documented CI job, krt plan against the base branch's generated/, would
  // refuse the revert; krt cdktf, which is what deploys, does not).
  it.failing('refuses to build the stacks of a reverted move that cdktf deployed', async () => {
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
    expect({ code: reverted.code, analyticsKeepsIt: builtTopics('analytics')?.includes('orders.shipped.dlq') ?? true }).toEqual({ code: 1, analyticsKeepsIt: true });
  });

  it('refuses the same removal once the deployed consumer was synthesized (held)', async () => {
    const original = project.read('topologies/orders.ts');
    project.edit('topologies/orders.ts', '\n  ],', shipping);
    expect((await project.krt('synth')).code).toBe(0);
    project.write('topologies/orders.ts', original);
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain('orders.shipped.dlq');
  });
});
