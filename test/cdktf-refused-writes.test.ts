import { writeFileSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * krt cdktf, the app cdktf runs: a write into cdktf's output folder the filesystem refuses
 * ends with a krt error (exit 1), not an internal error (exit 70); an --out that is a file is a
 * usage error, as for synth and plan (found by the attack of session 55).
 */

jest.setTimeout(60_000);

let project: ScratchProject;
const before = process.env.CDKTF_OUTDIR;
beforeEach(() => {
  project = new ScratchProject();
  writeFileSync(project.path('in-the-way'), 'a file\n');
});
afterEach(() => {
  if (before === undefined) delete process.env.CDKTF_OUTDIR;
  else process.env.CDKTF_OUTDIR = before;
  project.remove();
});

it('says it cannot write cdktf\'s output folder and builds nothing, when a file stands where it goes', async () => {
  process.env.CDKTF_OUTDIR = project.path('in-the-way');
  const cdktf = await project.krt('cdktf');
  expect(cdktf.code).toBe(1);
  expect(cdktf.stderr).toMatch(/^krt: cannot write \S*in-the-way\S*, cdktf's output folder: .*\(ENOTDIR\); nothing is deployed/);
});

it('takes an --out that is a file for a usage error', async () => {
  const cdktf = await project.krt('cdktf', '--out', 'in-the-way');
  expect(cdktf.code).toBe(2);
  expect(cdktf.stderr).toContain('in-the-way is a file, not a folder');
});
