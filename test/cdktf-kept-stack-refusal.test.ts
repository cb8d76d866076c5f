import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * The way out of a kept-stack refusal as `krt cdktf` (the app of `cdktf deploy`) prints
 * it: a consumer of a deleted topology file declared again in another topology is refused
 * while the kept stack may still hold its topics. The refusal used to say "cdktf deploy
 * analytics" (which runs the same app, refusing while the spec holds the edit) and "run
 * this again with --applied" (an option krt cdktf does not have; finding fd6be38): it now
 * says to apply the kept stack as committed and to give --applied to krt synth.
 */
describe('the kept-stack refusal as krt cdktf prints it', () => {
  let project: ScratchProject;
  let original: string;
  const saved = process.env.CDKTF_OUTDIR;
  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    // The same consumer, declared again in orders.
    original = project.read('topologies/orders.ts');
    project.edit(
      'topologies/orders.ts',
      '\n  ],',
      `
    {
      name: 'analytics-orders',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:analytics',
      retryTopicBase: 'orders.confirmed.analytics-orders',
      ladder: ['5s', '1m'],
      criticality: 'analytics',
    },
  ],`,
    );
    process.env.CDKTF_OUTDIR = project.path('cdktf.out');
  });
  afterEach(() => {
    project.remove();
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });

  it('refuses, as krt synth does', async () => {
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain("stack 'analytics', kept (empty) since its topology file was deleted, may still hold them");
  });

  it('builds the kept stack with the spec as committed, so cdktf deploy can apply it as the refusal says', async () => {
    const refused = await project.krt('cdktf');
    expect(refused.stderr).toContain('cdktf deploy analytics without this edit');
    project.write('topologies/orders.ts', original);
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(0);
    expect(existsSync(path.join(project.path('cdktf.out'), 'stacks', 'analytics', 'cdk.tf.json'))).toBe(true);
  });

  it('tells to give --applied to krt synth, which has it, and krt synth then accepts the edit', async () => {
    const refused = await project.krt('cdktf');
    expect(refused.stderr).toContain('then run krt synth (or krt plan) again with --applied analytics');
    expect((await project.krt('synth', '--applied', 'analytics')).code).toBe(0);
    expect((await project.krt('cdktf')).code).toBe(0);
  });
});
