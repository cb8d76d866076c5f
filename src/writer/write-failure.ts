import path from 'node:path';
import { OutputFolderError } from './output-folder-error';
import { restoreAdvice } from './writing-marker';
import { isRefusedWrite } from '../util/refused-write';

export { isRefusedWrite };

/** A file of the output folder the filesystem would not let krt read (its rights, a folder where the file goes). */
export function readRefused(error: NodeJS.ErrnoException, target: string): OutputFolderError {
  const where = path.relative(process.cwd(), target) || target;
  return new OutputFolderError(`cannot read ${where}: ${reasonOf(error)}; krt compares what it generates with the file there: give krt the right to read it (or move what stands in its place), then run this again`, { cause: error });
}

/** The refusal in a clause: `permission denied (EACCES)`, the system's words without the path it repeats. */
export function reasonOf(error: NodeJS.ErrnoException): string {
  const words = /^[A-Z_]+: ([^,]+)/.exec(error.message)?.[1] ?? /^Path is a directory/.exec(error.message)?.[0] ?? error.message;
  return `${words} (${error.code})`;
}

/**
 * What a synth says when the filesystem refuses one of its writes. Before its first file
 * nothing of it reached the folder, which stays as committed; after, the folder mixes two
 * synths, and its marker stays up so that nothing judges against it until it is restored or
 * written whole.
 */
export function writeRefused(error: NodeJS.ErrnoException, target: string, written: number, outDir: string): OutputFolderError {
  // The path the system names: the marker or a folder, when that is what it refused, not the file in hand.
  const refusedPath = error.path === undefined || error.path.startsWith(target) ? target : error.path;
  const where = path.relative(process.cwd(), refusedPath) || refusedPath;
  const fix = 'give krt the right to write there (or free space), then run krt synth again';
  if (written === 0) return new OutputFolderError(`cannot write ${where}: ${reasonOf(error)}; nothing of this synth was written, the output folder is as it was: ${fix}`, { cause: error });
  const folder = path.relative(process.cwd(), outDir) || '.';
  return new OutputFolderError(
    `cannot write ${where}: ${reasonOf(error)}, after ${written} file${written === 1 ? '' : 's'} of this synth were written: ${folder} mixes two synths, and krt refuses to judge against it until it is whole; give krt the right to write there (or free space), ${restoreAdvice(folder)}, then run krt synth again`,
    { cause: error },
  );
}
