import { statSync } from 'node:fs';
import path from 'node:path';
import { OutputFolderError } from './write-generated';

/**
 * Refuses an output folder that a file stands in the way of: the folder itself or one of the
 * folders above it is a file (a mistyped `--out`). Found before anything is read or written,
 * so it is one sentence, not a failure of whichever file operation met it first.
 */
export function assertOutputFolderPath(outDir: string, cwd: string): void {
  for (let at = path.resolve(outDir); ; at = path.dirname(at)) {
    let isFolder: boolean | undefined;
    try {
      isFolder = statSync(at).isDirectory();
    } catch {
      isFolder = undefined; // not there yet: it will be made
    }
    if (isFolder === false) {
      const shown = path.relative(cwd, at) || '.';
      throw new OutputFolderError(`the output folder ${path.relative(cwd, outDir) || '.'} cannot be used: ${shown} is a file, not a folder; give --out a folder`, { exit: 'usage' });
    }
    if (isFolder || path.dirname(at) === at) return;
  }
}
