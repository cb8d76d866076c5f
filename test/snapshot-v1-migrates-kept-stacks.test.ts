import { existsSync, readFileSync, rmSync } from 'node:fs';
import { SNAPSHOT_VERSION } from '../src/writer/model-snapshot';
import { inOldShape } from './helpers/old-snapshot';
import { fileTree, ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * A snapshot an older krt wrote (version 1) is migrated, never refused with "delete the
 * output folder and synth again" (finding s25 attack3): a deleted topology's kept stack
 * (src/plan/removed-stacks.ts) lives only in the snapshot and the committed output, not in
 * the spec, so a snapshot rebuilt from the spec alone loses it, and with it the guard's
 * memory that the stack's topics (its DLQ, with records) are still held. The next synth
 * writes the migrated snapshot as the current version, kept stack included.
 */
describe('a version-1 snapshot holding a kept stack', () => {
  let project: ScratchProject;
  let written: Record<string, string>;
  const saved = process.env.CDKTF_OUTDIR;
  // Version 1 carried the kept stack as a hand-over of nothing in the first topology.
  const asVersion1 = (file: string) => {
    const snapshot = inOldShape(JSON.parse(project.read(file)), 1);
    project.write(file, `${JSON.stringify(snapshot, null, 2)}\n`);
  };
  const declareAgain = () =>
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

  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    expect(project.read('generated/.krt-model.json')).toContain('"mayHold"');
    written = fileTree(project.path('generated'));
    // As an older krt left it: the same output, snapshot version 1.
    asVersion1('generated/.krt-model.json');
    process.env.CDKTF_OUTDIR = project.path('cdktf.out');
  });
  afterEach(() => {
    project.remove();
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });

  it('is migrated by krt synth, which says so and writes the same output with the snapshot at the current version, kept stack included', async () => {
    const synth = await project.krt('synth');
    expect(synth.code).toBe(0);
    expect(synth.stderr).toContain(
      `./generated/.krt-model.json was written by an older krt (snapshot version 1): migrated to version ${SNAPSHOT_VERSION}, kept stacks and what they may still hold included; \`krt synth\` writes it as version ${SNAPSHOT_VERSION} (commit it); a consumer or tier that krt removed and whose stack was not applied since is not known to this krt: apply every stack before declaring such topics elsewhere\n`,
    );
    expect(fileTree(project.path('generated'))).toEqual(written);
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });

  it('still refuses, in krt synth, krt plan and krt cdktf, a topic of the kept stack declared again before the stack was applied', async () => {
    declareAgain();
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("stack 'analytics', kept (empty) since its topology file was deleted, may still hold them in its Terraform state");
    const plan = await project.krt('plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('migrated to version');
    expect(plan.stdout).toContain("while the kept stack 'analytics' of a deleted topology may still hold them");
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain("stack 'analytics', kept (empty) since its topology file was deleted, may still hold them");
  });

  it('plans no change and lets krt cdktf build the committed stacks, also over a version-1 snapshot of what cdktf built last', async () => {
    const plan = await project.krt('plan');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('no changes');
    expect((await project.krt('cdktf')).code).toBe(0);
    asVersion1('cdktf.out/.krt-model.json');
    const cdktf = await project.krt('cdktf');
    expect(cdktf.stderr).toContain('cdktf.out/.krt-model.json was written by an older krt (snapshot version 1): migrated');
    expect(cdktf.code).toBe(0);
    expect(existsSync(project.path('cdktf.out/stacks/analytics/cdk.tf.json'))).toBe(true);
    expect(JSON.parse(readFileSync(project.path('cdktf.out/.krt-model.json'), 'utf8')).version).toBe(SNAPSHOT_VERSION);
  });
});
