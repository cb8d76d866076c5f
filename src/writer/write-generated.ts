import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';

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

export class OutputFolderError extends Error {}

/** The files plus the manifest that lists them. */
export function withManifest(files: readonly GeneratedFile[]): GeneratedFile[] {
  const manifest = [`# ${GENERATED_NOTICE}`, ...files.map((f) => f.path)].join('\n');
  return [...files, { path: MANIFEST_FILE, content: `${manifest}\n` }];
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

/** What differs between the folder and the files a synth would write: `krt synth --check`. */
export function findDrift(outDir: string, files: readonly GeneratedFile[]): Drift[] {
  const all = withManifest(files);
  const drift: Drift[] = [];
  for (const file of all) {
    const current = read(path.join(outDir, file.path));
    if (current === undefined) drift.push({ path: file.path, reason: 'missing' });
    else if (current !== file.content) drift.push({ path: file.path, reason: 'differs' });
  }
  const wanted = new Set(all.map((f) => f.path));
  for (const old of previousManifest(outDir) ?? []) {
    if (!wanted.has(old) && existsSync(path.join(outDir, old))) drift.push({ path: old, reason: 'stale' });
  }
  return drift;
}

/** Writes what changed and removes what the previous synth wrote but this one did not. */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[]): WriteSummary {
  const previous = previousManifest(outDir);
  if (previous === undefined && existsSync(outDir) && readdirSync(outDir).length > 0) {
    throw new OutputFolderError(
      `${outDir} is not empty and has no ${MANIFEST_FILE}, so krt did not make it; choose an empty or new folder with --out, or move its contents away`,
    );
  }
  const all = withManifest(files);
  const written: string[] = [];
  for (const file of all) {
    const target = path.join(outDir, file.path);
    if (read(target) === file.content) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(`${target}.tmp`, file.content);
    renameSync(`${target}.tmp`, target);
    written.push(file.path);
  }
  const wanted = new Set(all.map((f) => f.path));
  const removed = (previous ?? []).filter((old) => !wanted.has(old) && existsSync(path.join(outDir, old)));
  for (const old of removed) {
    rmSync(path.join(outDir, old));
    removeEmptyParents(outDir, path.dirname(path.join(outDir, old)));
  }
  return { written, removed, unchanged: all.length - written.length };
}

function removeEmptyParents(root: string, dir: string): void {
  const top = path.resolve(root);
  for (let current = path.resolve(dir); current.startsWith(`${top}${path.sep}`); current = path.dirname(current)) {
    if (readdirSync(current).length > 0) return;
    rmdirSync(current);
  }
}
