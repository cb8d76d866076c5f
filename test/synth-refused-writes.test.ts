import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputFolder, OutputFolderError } from '../src/writer/write-generated';
import { WRITING_MARKER } from '../src/writer/writing-marker';
import { eachTestWithEnv } from './helpers/env';
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
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());
  const outdir = () => project.path('cdktf-outdir');
  eachTestWithEnv('CDKTF_OUTDIR', outdir); // where cdktf's App makes its folder when told none

  it('builds the Terraform it compares in memory: no cdktf output folder is made, in the project or where CDKTF_OUTDIR points', async () => {
    project.edit('topologies/analytics.ts', "ladder: ['5s', '1m']", "ladder: ['5s', '1m', '1h']");
    expect((await project.krt('plan')).code).toBe(0);
    expect((await project.krt('synth', '--check', '--no-cache')).code).toBe(1);
    expect(existsSync(outdir())).toBe(false);
    expect(existsSync(project.path('cdktf.out'))).toBe(false);
  });
});

describe('the output folder, attacked (session 55)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'krt-refused-'));
    writeFileSync(path.join(dir, '.krt-manifest'), '# a folder krt made\n');
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });
  const refusal = (error: unknown) => (error instanceof OutputFolderError ? error.message : `not an OutputFolderError: ${String(error)}`);
  const attempt = (act: () => unknown) => {
    try {
      act();
      return 'no error';
    } catch (error) {
      return refusal(error);
    }
  };
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

  it('reading a generated file the filesystem refuses (a folder where it goes) is a krt error, in a synth and in a check', () => {
    mkdirSync(path.join(dir, 'runbooks', 'a.md'), { recursive: true });
    expect(attempt(() => new OutputFolder(dir, 'write').put(file('runbooks/a.md')))).toMatch(/^cannot read \S*runbooks\/a\.md: .*\(EISDIR\); krt compares/);
    expect(attempt(() => new OutputFolder(dir, 'check').put(file('runbooks/a.md')))).toMatch(/^cannot read \S*runbooks\/a\.md/);
    expect(existsSync(path.join(dir, WRITING_MARKER))).toBe(false);
  });

  it('a stale file that became a folder is a refused removal, and the marker says so', () => {
    writeFileSync(path.join(dir, '.krt-manifest'), '# a folder krt made\nrunbooks/old.md\n');
    mkdirSync(path.join(dir, 'runbooks', 'old.md'), { recursive: true });
    writeFileSync(path.join(dir, 'runbooks', 'old.md', 'x'), 'x\n');
    const folder = new OutputFolder(dir, 'write');
    folder.put(file('a.md'));
    expect(attempt(() => folder.finish(['a.md']))).toMatch(/^cannot write \S*runbooks\/old\.md: .*, after 2 files of this synth were written/);
    expect(JSON.parse(readFileSync(path.join(dir, WRITING_MARKER), 'utf8')).failed).toMatch(/writing runbooks\/old\.md$/);
  });

  it('a symlink loop where a folder goes is a refused write, not an internal error', () => {
    symlinkSync('runbooks', path.join(dir, 'runbooks'));
    expect(attempt(() => new OutputFolder(dir, 'write').put(file('runbooks/a.md')))).toMatch(/^cannot (read|write) \S*runbooks.*\(ELOOP\)/);
    expect(existsSync(path.join(dir, WRITING_MARKER))).toBe(false);
  });

  it('a full disk as the marker is made leaves no marker, and the refusal names it', () => {
    const write = fs.writeFileSync;
    jest.spyOn(fs, 'writeFileSync').mockImplementation((target, data, options) => {
      if (String(target).endsWith(WRITING_MARKER)) {
        write(target, '', options as fs.WriteFileOptions); // made, then the disk is full
        throw enospc();
      }
      return write(target, data, options as fs.WriteFileOptions);
    });
    expect(attempt(() => new OutputFolder(dir, 'write').put(file('terraform/a/cdk.tf.json')))).toMatch(/^cannot write \S*\.krt-writing: no space left on device \(ENOSPC\); nothing of this synth was written/);
    expect(existsSync(path.join(dir, WRITING_MARKER))).toBe(false);
    expect(existsSync(path.join(dir, 'terraform'))).toBe(false);
  });

  it('a refused first write removes the folders it made for it, so no empty stack folder is taken for a stack', () => {
    const write = fs.writeFileSync;
    jest.spyOn(fs, 'writeFileSync').mockImplementation((target, data, options) => {
      if (String(target).includes(`cdk.tf.json.${process.pid}.tmp`)) throw enospc();
      return write(target, data, options as fs.WriteFileOptions);
    });
    mkdirSync(path.join(dir, 'terraform', 'old'), { recursive: true });
    expect(attempt(() => new OutputFolder(dir, 'write').put(file('terraform/new/cdk.tf.json')))).toMatch(/nothing of this synth was written, the output folder is as it was/);
    expect(readdirSync(path.join(dir, 'terraform'))).toEqual(['old']);
    expect(existsSync(path.join(dir, WRITING_MARKER))).toBe(false);
  });
});

describe('krt plan on an output folder it cannot look into', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('refuses (exit 1), instead of planning a destructive edit as new and passing', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '1h']");
    rmSync(project.path('generated'), { recursive: true });
    symlinkSync('generated', project.path('generated')); // a loop: existsSync says "not there", as for a folder of another user
    const plan = await project.krt('plan', '--json');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/^krt: cannot read generated \(ELOOP\): krt judges every spec change against the output committed there/);
  });
});

describe('the temporary folder the in-memory Terraform names', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    mkdirSync(project.path('tmp'));
  });
  afterEach(() => project.remove());
  const tmp = () => project.path('tmp');
  eachTestWithEnv('TMPDIR', tmp);

  it('is gone as soon as the App is made: a plan and a check leave nothing in TMPDIR, even where exit handlers never run (here, jest)', async () => {
    project.edit('topologies/analytics.ts', "ladder: ['5s', '1m']", "ladder: ['5s', '1m', '1h']");
    await project.krt('plan');
    await project.krt('synth', '--check', '--no-cache');
    expect(readdirSync(tmp())).toEqual([]);
  });
});
