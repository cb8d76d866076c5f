import { readdirSync } from 'node:fs';
import path from 'node:path';
import { OutputFolderError } from './output-folder-error';

/**
 * Refuses an output folder krt cannot read (its rights, another user's folder): asked whether
 * a file is in it, Node's existsSync answers false for "cannot look", and the folder passed for
 * one no synth had made, so every change was planned as new and a destructive one exited 0
 * (found by the attack of session 55). A folder that is not there is not refused here.
 */
export function assertReadableFolder(outDir: string, cwd: string): void {
  try {
    readdirSync(outDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw new OutputFolderError(
      `cannot read ${path.relative(cwd, outDir) || '.'} (${code ?? (error as Error).message}): krt judges every spec change against the output committed there, so without it it cannot tell what the change deletes; give krt the right to read it, and run this again`,
      { cause: error },
    );
  }
}
