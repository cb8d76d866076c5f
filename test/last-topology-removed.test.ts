import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

jest.setTimeout(180_000);

/*
 * The last topology file of a project deleted (docs/changing-topologies.md "Remove a whole
 * topology"): its stack is kept, empty, by the project itself, as any deleted topology's
 * is, so applying it deletes what its Terraform state holds (attack 37, finding 2).
 */

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

type Snapshot = { topologies: unknown[]; keptStacks?: { stack: string; mayHold?: { topics: { name: string }[] } }[] };
const snapshot = () => JSON.parse(project.read('generated/.krt-model.json')) as Snapshot;

/** A project of one topology file, a.ts (consumer q), whose consumer was decommissioned and synthesized, then the file deleted. */
async function retiredProject(): Promise<void> {
  project.write('topologies/a.ts', topology('a', [consumer('q')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/a.ts', topology('a', [consumer('q', ', decommissioned: true')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  rmSync(project.path('topologies/a.ts'));
}

describe('the last topology file deleted after its consumers were decommissioned', () => {
  it('is planned as any deleted topology is: its topics deleted, its stack kept empty', async () => {
    await retiredProject();
    const plan = await project.krt('plan');
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toMatch(/destructive +consumer removed: deletes 'q\.events\./);
    expect(plan.stdout).toMatch(/safe +topology removed: its stack 'a' is still generated, with no resources/);
  });

  it('leaves only the kept stack and the runbook index generated, with the kept stack and what it may hold in the snapshot, and a check agrees', async () => {
    await retiredProject();
    expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
    expect(project.read('generated/terraform/a/cdk.tf.json')).not.toMatch(/kafka_topic|kafka_acl|"removed"/);
    for (const gone of ['prometheus/a.rules.yml', 'router/a', 'runbooks/q.md']) expect(existsSync(project.path(`generated/${gone}`))).toBe(false);
    expect(existsSync(project.path('generated/runbooks/README.md'))).toBe(true);
    const { topologies, keptStacks } = snapshot();
    expect(topologies).toEqual([]);
    expect(keptStacks?.map((k) => k.stack)).toEqual(['a']);
    expect(keptStacks?.[0]?.mayHold?.topics.map((t) => t.name)).toEqual(expect.arrayContaining(['q.events.dlq']));
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stderr: '' });
    expect((await project.krt('plan')).stdout).toContain('no changes against');
  });

  it('keeps the stack once told it was applied, recording nothing it may hold', async () => {
    await retiredProject();
    expect((await project.krt('synth')).code).toBe(0);
    expect(await project.krt('synth', '--applied', 'a')).toMatchObject({ code: 0, stderr: '' });
    expect(snapshot().keptStacks).toEqual([{ stack: 'a', cluster: expect.any(Object) }]);
    expect(project.read('generated/terraform/a/cdk.tf.json')).not.toContain('kafka_topic');
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stderr: '' });
  });

  it('is built by krt cdktf, the kept stack alone', async () => {
    await retiredProject();
    expect((await project.krt('synth')).code).toBe(0);
    expect(await project.krt('cdktf')).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(path.join(project.path('cdktf.out'), 'stacks', 'a', 'cdk.tf.json'))).toBe(true);
  });

  it('gives its stack back to a topology file of that name, which generates it again', async () => {
    await retiredProject();
    expect((await project.krt('synth')).code).toBe(0);
    project.write('topologies/a.ts', topology('a', [consumer('r')]));
    expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
    expect(snapshot().keptStacks).toBeUndefined();
    expect(project.read('generated/terraform/a/cdk.tf.json')).toContain('r.events.dlq');
  });
});

describe('a topology file deleted while its consumers are live', () => {
  /** What krt synth says when a.ts (consumer q) is deleted from a project of these files. */
  async function refusalOfDeleting(others: Record<string, string>): Promise<string> {
    project.write('topologies/a.ts', topology('a', [consumer('q')]));
    for (const [file, source] of Object.entries(others)) project.write(file, source);
    expect((await project.krt('synth')).code).toBe(0);
    const before = project.read('generated/.krt-model.json');
    rmSync(project.path('topologies/a.ts'));
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    // Nothing written: the stack still declares the topics.
    expect(project.read('generated/.krt-model.json')).toBe(before);
    expect(project.read('generated/terraform/a/cdk.tf.json')).toContain('kafka_topic');
    return synth.stderr;
  }

  it('is refused when it is the last one, as when other topology files remain', async () => {
    const last = await refusalOfDeleting({});
    project.remove();
    project = new ScratchProject(false);
    mkdirSync(project.path('topologies'));
    process.env.CDKTF_OUTDIR = project.path('cdktf.out');
    const notLast = await refusalOfDeleting({ 'topologies/b.ts': topology('b', [consumer('r')]) });
    expect(last).toContain("'q.events.dlq'");
    expect(last).toBe(notLast);
  });
});

describe('a project that never had a topology file', () => {
  it('is still told that no topology files were found', async () => {
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('no topology files found');
    expect(existsSync(project.path('generated'))).toBe(false);
  });
});
