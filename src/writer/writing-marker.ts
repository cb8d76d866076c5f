import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OutputFolderError } from './output-folder-error';

/**
 * A file that stands in the output folder while a synth writes it. A synth writes its files
 * one after another (the stacks, the other outputs, the model snapshot, the manifest): one
 * killed in between (SIGKILL, out of memory, a power loss) leaves stacks of one synth beside
 * the snapshot of the one before, and the guards, which judge every edit against them, then
 * judge against a state no synth made (found by attack 33: a kept stack's state forgotten).
 * While the marker stands, nothing reads the folder as the committed output.
 */
export const WRITING_MARKER = '.krt-writing';

/** Refuses a folder a synth began to write and did not finish, saying how to get it back (paths shown from `cwd`). */
export function assertNotHalfWritten(outDir: string, cwd = process.cwd()): void {
  const marker = path.join(outDir, WRITING_MARKER);
  if (!existsSync(marker)) return;
  const folder = path.relative(cwd, outDir) || '.';
  const { pid, since, failed } = writerOf(marker);
  const restore = `${restoreAdvice(folder)}, or delete it if it was never committed, then run this again`;
  if (pid !== undefined && isRunning(pid)) {
    throw new OutputFolderError(`${folder} is being written by krt synth (process ${pid}, since ${since}): wait for it to finish and run this again; if no krt synth runs there (the process number now belongs to another program), ${restore}`);
  }
  const how = failed === undefined ? 'killed, out of memory, or the machine stopped' : `the filesystem refused a write: ${failed}`;
  throw new OutputFolderError(
    `${folder} was left half-written by a krt synth that did not finish (process ${pid ?? '?'}, started ${since}; ${how}): its files mix two synths, so krt cannot tell what the spec changes delete; ${restore}`,
  );
}

/**
 * How to get a folder back as committed. git commands only for a folder of this project:
 * one outside it (\`--out ../elsewhere\`) is not in this repository, and `git checkout` there
 * would fail or touch another one.
 */
export function restoreAdvice(folder: string): string {
  if (path.isAbsolute(folder) || folder === '..' || folder.startsWith(`..${path.sep}`)) return `restore ${folder} from wherever it is kept as committed (it is outside this project, so not in its git repository)`;
  return `restore the folder as committed, \`git checkout HEAD -- ${folder} && git clean -fd -- ${folder}\` (your spec edits stay)`;
}

/**
 * Puts the marker up before the first file is written, only if none stands: a synth
 * started at the same instant as another one (both found no marker) must not write over
 * it, nor take its marker down when it finishes first. The one that comes second is refused
 * as any synth is while another one writes.
 */
export function beginWriting(outDir: string, cwd = process.cwd()): void {
  try {
    writeFileSync(path.join(outDir, WRITING_MARKER), `${JSON.stringify({ pid: process.pid, since: new Date().toISOString() })}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      // Not there before (else EEXIST): a full disk can leave it made and empty, so it goes, and the error names it.
      try {
        rmSync(path.join(outDir, WRITING_MARKER), { force: true });
      } catch {
        // Could not be made either, then.
      }
      (error as NodeJS.ErrnoException).path ??= path.join(outDir, WRITING_MARKER);
      throw error;
    }
    assertNotHalfWritten(outDir, cwd);
    // Gone again already: the other synth finished in between, and this one computed its output before that.
    throw new OutputFolderError(`${path.relative(cwd, outDir) || '.'} was written by another krt synth while this one ran, so this one's output was judged against what the folder held before: run this again`);
  }
}

/**
 * Says in the marker why this synth stopped half-way (a write the filesystem refused), for
 * the next run to tell. Best effort: a marker that cannot be rewritten still stands.
 */
export function markFailed(outDir: string, reason: string): void {
  const marker = path.join(outDir, WRITING_MARKER);
  try {
    writeFileSync(marker, `${JSON.stringify({ ...writerOf(marker), pid: process.pid, failed: reason })}\n`);
  } catch {
    // The marker stays as it was: the next run refuses the folder all the same.
  }
}

/** Takes the marker down once every file and the manifest are written. */
export function endWriting(outDir: string): void {
  rmSync(path.join(outDir, WRITING_MARKER), { force: true });
}

function writerOf(marker: string): { pid?: number; since: string; failed?: string } {
  try {
    const { pid, since, failed } = JSON.parse(readFileSync(marker, 'utf8')) as { pid?: unknown; since?: unknown; failed?: unknown };
    return { ...(typeof pid === 'number' ? { pid } : {}), since: typeof since === 'string' ? since : 'at an unknown time', ...(typeof failed === 'string' ? { failed } : {}) };
  } catch {
    return { since: 'at an unknown time' };
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What the file a synth judges against looks like on disk (size, modification time, inode),
 * or 'absent': taken when the synth starts and again once its marker is up, so that a synth
 * which read the folder before another one wrote it does not write over that one's output
 * with its own, judged against what the folder held before.
 */
export function stampOf(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return 'absent';
  }
}
