import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * `krt plan --out` naming a folder that is not there (a typo, a CI checkout of the base branch
 * at another path) planned every change as new and exited 0, so a destructive edit passed as
 * safe; and its hint named generated/ whatever --out said. Found by the walkthrough of session 55.
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

  it('says how to synth into an existing empty --out folder, naming that folder, not generated/', async () => {
    mkdirSync(project.path('fresh'));
    const plan = await project.krt('plan', '--out', 'fresh');
    expect(plan.stdout.split('\n')[0]).toBe('no fresh/.krt-model.json yet: everything below is new (run `krt synth --out fresh` and commit fresh/ to plan against it)');
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
