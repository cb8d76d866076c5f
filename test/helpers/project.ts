import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/program';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Every file under `dir`, by path relative to it, with its content; {} when there is no such folder. */
export function fileTree(dir: string): Record<string, string> {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return {};
  }
  return Object.fromEntries(
    entries
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .sort()
      .map((file) => [path.relative(dir, file), readFileSync(file, 'utf8')]),
  );
}

/** A scratch copy of the repository's topologies and generated output. */
export class ScratchProject {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'krt-test-'));

  constructor(withExamples = true) {
    if (withExamples) {
      cpSync(path.join(REPO_ROOT, 'topologies'), path.join(this.dir, 'topologies'), { recursive: true });
      cpSync(path.join(REPO_ROOT, 'generated'), path.join(this.dir, 'generated'), { recursive: true });
    }
  }

  path(relative: string): string {
    return path.join(this.dir, relative);
  }

  read(relative: string): string {
    return readFileSync(this.path(relative), 'utf8');
  }

  write(relative: string, content: string): void {
    writeFileSync(this.path(relative), content);
  }

  edit(relative: string, from: string, to: string): void {
    const before = this.read(relative);
    if (!before.includes(from)) throw new Error(`${relative} does not contain ${from}`);
    this.write(relative, before.replace(from, to));
  }

  /** Runs `krt ...args` in this project. */
  async krt(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      cwd: this.dir,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * For each test, a scratch project with an empty topologies/ whose `krt cdktf` builds into its
 * own cdktf.out ($CDKTF_OUTDIR, restored after the test); `take` receives it.
 */
export function eachProjectWithCdktfOut(take: (project: ScratchProject) => void): void {
  const saved = process.env.CDKTF_OUTDIR;
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject(false);
    mkdirSync(project.path('topologies'));
    process.env.CDKTF_OUTDIR = project.path('cdktf.out');
    take(project);
  });
  afterEach(() => {
    project.remove();
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });
}
