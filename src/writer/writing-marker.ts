import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  const { pid, since } = writerOf(marker);
  const restore = `restore the folder as committed, \`git checkout HEAD -- ${folder} && git clean -fd -- ${folder}\` (your spec edits stay), or delete it if it was never committed, then run this again`;
  if (pid !== undefined && isRunning(pid)) {
    throw new OutputFolderError(`${folder} is being written by krt synth (process ${pid}, since ${since}): wait for it to finish and run this again; if no krt synth runs there (the process number now belongs to another program), ${restore}`);
  }
  throw new OutputFolderError(
    `${folder} was left half-written by a krt synth that did not finish (process ${pid ?? '?'}, started ${since}; killed, out of memory, or the machine stopped): its files mix two synths, so krt cannot tell what the spec changes delete; ${restore}`,
  );
}

/** Puts the marker up before the first file is written. */
export function beginWriting(outDir: string): void {
  writeFileSync(path.join(outDir, WRITING_MARKER), `${JSON.stringify({ pid: process.pid, since: new Date().toISOString() })}\n`);
}

/** Takes the marker down once every file and the manifest are written. */
export function endWriting(outDir: string): void {
  rmSync(path.join(outDir, WRITING_MARKER), { force: true });
}

function writerOf(marker: string): { pid?: number; since: string } {
  try {
    const { pid, since } = JSON.parse(readFileSync(marker, 'utf8')) as { pid?: unknown; since?: unknown };
    return { ...(typeof pid === 'number' ? { pid } : {}), since: typeof since === 'string' ? since : 'at an unknown time' };
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
