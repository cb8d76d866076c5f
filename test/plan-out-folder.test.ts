import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * `krt plan --out` naming a folder that is not there or holds no output of krt synth (a typo,
 * a CI checkout of the base branch at another path, the checkout's root) planned every change
 * as new and exited 0, so a destructive edit passed as safe. Found by the walkthrough and the
 * attack of session 55.
 */

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
  project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '1h']"); // destructive: a tier dropped
});
afterEach(() => project.remove());

describe('krt plan --out', () => {
  it('refuses a folder that does not exist as a usage error, instead of planning everything as new and passing', async () => {
    const plan = await project.krt('plan', '--out', 'genrated');
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/^krt: --out genrated: no such folder; krt plan compares the spec with the model snapshot krt synth committed there/);
    expect(plan.stdout).toBe('');
  });

  it('plans against the committed output when --out names it, as without the flag', async () => {
    const [named, implied] = [await project.krt('plan', '--out', 'generated'), await project.krt('plan')];
    expect(named).toEqual(implied);
    expect(named.code).not.toBe(0);
  });

  it.each([['an empty folder', 'fresh'], ["the project's root instead of its output folder", '.'], ['the topologies', 'topologies']])('refuses %s, which holds no output of krt synth, as a usage error', async (_what, out) => {
    if (out === 'fresh') mkdirSync(project.path('fresh'));
    const plan = await project.krt('plan', '--out', out, '--json');
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(`--out ${out} holds no output of krt synth`);
  });

  it('still plans a first synth (no generated/ yet, no --out) as new', async () => {
    rmSync(project.path('generated'), { recursive: true });
    const plan = await project.krt('plan');
    expect(plan.code).toBe(0);
    expect(plan.stdout.split('\n')[0]).toBe('no generated/.krt-model.json yet: everything below is new (run `krt synth` and commit generated/ to plan against it)');
  });

  it('refuses --min-insync-replicas without --live, where it would be ignored', async () => {
    const plan = await project.krt('plan', '--min-insync-replicas', '2');
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('--min-insync-replicas applies only with --live');
  });
});
