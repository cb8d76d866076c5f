import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';
import { OutputFolderError } from './output-folder-error';
import { assertNotHalfWritten, beginWriting, endWriting, markFailed, stampOf } from './writing-marker';
import { isRefusedWrite, reasonOf, readRefused, writeRefused } from './write-failure';

/**
 * The list of files the last synth wrote. Stale files are removed only when listed
 * here, so whatever else lives in the folder (`.terraform/`, state) is never touched.
 */
export const MANIFEST_FILE = '.krt-manifest';

export interface Drift {
  readonly path: string;
  readonly reason: 'differs' | 'missing' | 'stale';
}

export interface WriteSummary {
  readonly written: readonly string[];
  readonly removed: readonly string[];
  readonly unchanged: number;
}

export { OutputFolderError } from './output-folder-error';

/** The manifest listing these paths, in this order. */
function manifestFile(paths: readonly string[]): GeneratedFile {
  return { path: MANIFEST_FILE, content: `${[`# ${GENERATED_NOTICE}`, ...paths].join('\n')}\n` };
}

function previousManifest(outDir: string): string[] | undefined {
  const file = path.join(outDir, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function read(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The SHA-256 of a file in the output folder, or undefined when it is missing. */
export function outputHash(outDir: string, file: string): string | undefined {
  const target = path.join(outDir, file);
  return existsSync(target) ? contentHash(readFileSync(target)) : undefined;
}

export function contentHash(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The output folder during one synth: files are written (or, with `check`, compared) one
 * at a time as the emitters produce them, so a large synth never holds them all; `finish`
 * writes the manifest and removes what the previous synth wrote and this one did not. From
 * the first write to the end of `finish` the writing marker stands (writing-marker.ts): a
 * folder a synth did not finish is refused, not judged against.
 */
export class OutputFolder {
  private readonly previous: string[] | undefined;
  private readonly written: string[] = [];
  /** Folders this synth made (mkdir's first one, and the deepest), to remove again if nothing of it gets written. */
  private readonly made: { readonly top: string; readonly deepest: string }[] = [];
  private readonly drift = new Map<string, Drift['reason']>();
  /** Whether this synth put up the writing marker (before its first write). */
  private writing = false;

  constructor(
    private readonly outDir: string,
    private readonly mode: 'write' | 'check',
    /** The file the synth judged against (\`path\`, in the folder) and its \`stamp\` (writing-marker.ts stampOf) when the synth read it. */
    private readonly judgedAgainst?: { readonly path: string; readonly stamp: string },
  ) {
    assertNotHalfWritten(outDir);
    this.previous = previousManifest(outDir);
    if (mode === 'write' && this.previous === undefined && existsSync(outDir) && readdirSync(outDir).length > 0) {
      throw new OutputFolderError(
        `${outDir} is not empty and has no ${MANIFEST_FILE}, so krt did not make it; choose an empty or new folder with --out, or move its contents away`,
        { exit: 'usage' },
      );
    }
  }

  /** Refuses to write (taking its marker down) once another synth wrote the folder after this one read it. */
  private assertJudgedAgainstUnchanged(): void {
    if (!this.judgedAgainst || stampOf(path.join(this.outDir, this.judgedAgainst.path)) === this.judgedAgainst.stamp) return;
    endWriting(this.outDir);
    this.writing = false;
    throw new OutputFolderError(`${path.relative(process.cwd(), this.outDir) || "."} was written by another krt synth while this one ran, so this one's output was judged against what the folder held before; nothing was written: run this again`);
  }

  /** Writes the file when it differs from the folder's copy, or records the difference. */
  put(file: GeneratedFile): void {
    const target = path.join(this.outDir, file.path);
    let current: string | undefined;
    try {
      current = read(target);
    } catch (error) {
      if (!isRefusedWrite(error)) throw error;
      throw this.refused(error, target, readRefused(error, target));
    }
    if (current === file.content) return;
    if (this.mode === 'check') {
      this.drift.set(file.path, current === undefined ? 'missing' : 'differs');
      return;
    }
    // A name of this process's own: two synths into one folder must not rename each other's file.
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      if (!this.writing) {
        // Up before anything of this synth reaches the folder, a new stack's folder included.
        this.madeFolder(mkdirSync(this.outDir, { recursive: true }), this.outDir);
        beginWriting(this.outDir);
        this.writing = true;
        this.assertJudgedAgainstUnchanged();
      }
      this.madeFolder(mkdirSync(path.dirname(target), { recursive: true }), path.dirname(target));
      writeFileSync(temporary, file.content);
      renameSync(temporary, target);
    } catch (error) {
      removeTemporary(temporary);
      throw this.refused(error, target);
    }
    this.written.push(file.path);
  }

  private madeFolder(top: string | undefined, deepest: string): void {
    if (top !== undefined) this.made.push({ top, deepest });
  }

  /**
   * A write the filesystem refused (its rights, a read-only mount, a full disk), as an error
   * the CLI ends on. With nothing of this synth written yet, its marker comes down: the folder
   * is as committed. After, the marker stays, saying why, so the next run does not blame a
   * crash. Any other error is returned as it is.
   */
  private refused(error: unknown, target: string, told?: OutputFolderError): unknown {
    if (!isRefusedWrite(error)) return error;
    if (this.written.length === 0) {
      // Nothing of this synth reached the folder: it goes back to what it was, marker and new folders too.
      if (this.writing) takeDown(this.outDir);
      this.writing = false;
      removeFolders(this.made.splice(0));
    } else if (this.writing) markFailed(this.outDir, `${reasonOf(error)} ${told ? 'reading' : 'writing'} ${path.relative(this.outDir, target)}`);
    return told ?? writeRefused(error, target, this.written.length, this.outDir);
  }

  /**
   * Ends the synth. `paths` are every generated file in manifest order: those put here
   * and those the caller found unchanged without producing them.
   */
  finish(paths: readonly string[]): WriteSummary & { readonly drift: Drift[] } {
    this.put(manifestFile(paths));
    const all = [...paths, MANIFEST_FILE];
    const wanted = new Set(all);
    const stale = (this.previous ?? []).filter((old) => !wanted.has(old) && existsSync(path.join(this.outDir, old)));
    const drift: Drift[] = all.flatMap((p) => {
      const reason = this.drift.get(p);
      return reason ? [{ path: p, reason }] : [];
    });
    if (this.mode === 'check') {
      return { written: [], removed: [], unchanged: all.length - drift.length, drift: [...drift, ...stale.map((p) => ({ path: p, reason: 'stale' as const }))] };
    }
    for (const old of stale) {
      try {
        rmSync(path.join(this.outDir, old));
        removeEmptyParents(this.outDir, path.dirname(path.join(this.outDir, old)));
      } catch (error) {
        throw this.refused(error, path.join(this.outDir, old));
      }
    }
    // Every file, the manifest and the removals done: the folder is one synth's again.
    if (this.writing) endWriting(this.outDir);
    const order = new Map(all.map((p, i) => [p, i]));
    const written = [...this.written].sort((a, b) => order.get(a)! - order.get(b)!);
    return { written, removed: stale, unchanged: all.length - written.length, drift: [] };
  }
}

/** What differs between the folder and the files a synth would write: `krt synth --check`. */
export function findDrift(outDir: string, files: readonly GeneratedFile[]): Drift[] {
  const folder = new OutputFolder(outDir, 'check');
  files.forEach((file) => folder.put(file));
  return folder.finish(files.map((f) => f.path)).drift;
}

/** Writes what changed and removes what the previous synth wrote but this one did not. */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[]): WriteSummary {
  const folder = new OutputFolder(outDir, 'write');
  files.forEach((file) => folder.put(file));
  const { written, removed, unchanged } = folder.finish(files.map((f) => f.path));
  return { written, removed, unchanged };
}

/** Removes the folders a synth made, deepest first, as long as they are empty (best effort). */
function removeFolders(made: readonly { readonly top: string; readonly deepest: string }[]): void {
  for (const { top, deepest } of [...made].reverse()) {
    for (let dir = path.resolve(deepest); ; dir = path.dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty, or not ours to remove
      }
      if (dir === path.resolve(top)) break;
    }
  }
}

/** Removes a temporary file a refused write may have left (a full disk stops a write half-way); best effort. */
function removeTemporary(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Its folder cannot be read either: nothing of it to remove.
  }
}

/** Takes this synth's marker down when nothing of it was written; a marker that cannot go stays, and the next run refuses the folder. */
function takeDown(outDir: string): void {
  try {
    endWriting(outDir);
  } catch {
    // Left up: refused as half-written, which asks to restore the folder as committed.
  }
}

function removeEmptyParents(root: string, dir: string): void {
  const top = path.resolve(root);
  for (let current = path.resolve(dir); current.startsWith(`${top}${path.sep}`); current = path.dirname(current)) {
    if (readdirSync(current).length > 0) return;
    rmdirSync(current);
  }
}
