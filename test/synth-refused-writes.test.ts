import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputFolder, OutputFolderError } from '../src/writer/write-generated';
import { WRITING_MARKER } from '../src/writer/writing-marker';
import { ScratchProject } from './helpers/project';

/*
 * A write the filesystem refuses (the folder's rights, a read-only mount, a full disk) ends a
 * synth with a `krt:` error and exit 1, not an internal error (exit 70); with nothing of the
 * synth written the folder is as committed and no marker stays; after some files the marker
 * stays and says why, so the next run does not blame a crash. Found by the walkthrough of
 * session 55. Root ignores a folder's rights, so a file standing where a folder must be makes
 * the filesystem refuse here.
 */

const file = (p: string, content = 'x\n') => ({ path: p, content });

describe('the output folder when the filesystem refuses a write', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'krt-refused-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses with what it could not write and takes its marker down when nothing was written yet', () => {
    writeFileSync(path.join(dir, '.krt-manifest'), '# a folder krt made\n');
    writeFileSync(path.join(dir, 'terraform'), 'in the way\n');
    const folder = new OutputFolder(dir, 'write');
    let error: unknown;
    try {
      folder.put(file('terraform/a/cdk.tf.json'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OutputFolderError);
    expect((error as Error).message).toMatch(/^cannot write .*terraform.*\((ENOTDIR|EEXIST)\); nothing of this synth was written, the output folder is as it was/);
    expect(existsSync(path.join(dir, WRITING_MARKER))).toBe(false);
    expect(() => new OutputFolder(dir, 'write')).not.toThrow();
  });

  it('keeps its marker after some files were written, saying which write was refused, and the next synth tells that instead of a crash', () => {
    writeFileSync(path.join(dir, '.krt-manifest'), '# a folder krt made\n');
    writeFileSync(path.join(dir, 'runbooks'), 'in the way\n');
    const folder = new OutputFolder(dir, 'write');
    folder.put(file('terraform/a/cdk.tf.json'));
    expect(() => folder.put(file('runbooks/a.md'))).toThrow(/^cannot write .*runbooks.*\((ENOTDIR|EEXIST)\), after 1 file of this synth were written: .* mixes two synths, and krt refuses to judge against it until it is whole; .*restore /);
    expect(JSON.parse(readFileSync(path.join(dir, WRITING_MARKER), 'utf8')).failed).toMatch(/\((ENOTDIR|EEXIST)\) writing runbooks\/a\.md$/);
    expect(() => new OutputFolder(dir, 'write')).toThrow(/left half-written by a krt synth that did not finish \(process \d+, started .*; the filesystem refused a write: .* writing runbooks\/a\.md\)/);
  });
});

describe('krt synth when the filesystem refuses a write', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('exits 1 with a krt error naming the file, and the next synth and plan say the folder is half-written by a refused write', async () => {
    project.edit('topologies/analytics.ts', "ladder: ['5s', '1m']", "ladder: ['5s', '1m', '1h']");
    rmSync(project.path('generated/runbooks'), { recursive: true });
    writeFileSync(project.path('generated/runbooks'), 'in the way\n');
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toMatch(/^krt: cannot write \S*generated\/runbooks\S*: .*\((ENOTDIR|EEXIST)\), after \d+ files of this synth were written/);
    expect(synth.stderr).not.toContain('internal error');
    for (const again of [await project.krt('synth'), await project.krt('plan')]) {
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('the filesystem refused a write');
    }
  });
});

describe('what krt plan and krt synth --check write', () => {
  let project: ScratchProject;
  let outdir: string;
  const before = process.env.CDKTF_OUTDIR;
  beforeEach(() => {
    project = new ScratchProject();
    outdir = project.path('cdktf-outdir');
    process.env.CDKTF_OUTDIR = outdir; // where cdktf's App makes its folder when told none
  });
  afterEach(() => {
    if (before === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = before;
    project.remove();
  });

  it('builds the Terraform it compares in memory: no cdktf output folder is made, in the project or where CDKTF_OUTDIR points', async () => {
    project.edit('topologies/analytics.ts', "ladder: ['5s', '1m']", "ladder: ['5s', '1m', '1h']");
    expect((await project.krt('plan')).code).toBe(0);
    expect((await project.krt('synth', '--check', '--no-cache')).code).toBe(1);
    expect(existsSync(outdir)).toBe(false);
    expect(existsSync(project.path('cdktf.out'))).toBe(false);
  });
});
