import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';
import { contentHash } from './write-generated';

/**
 * The chain of accepted synths behind the committed model snapshot: the SHA-256 of each
 * snapshot a synth that changed it judged against, oldest first, and the SHA-256 of the
 * snapshot the chain leads to. `krt cdktf` reads it to tell a committed output that
 * descends from what it built last through synths krt accepted (applied meanwhile with
 * `terraform apply`, say) from a revert of deployed output, which it must judge itself.
 * It only ever lets a build through that the chain vouches for: absent, unreadable or
 * written for another snapshot, it vouches for nothing and cdktf judges as before.
 */
export const LINEAGE_FILE = '.krt-lineage.json';

/** How many accepted synths the chain remembers: a build further behind is judged directly. */
export const LINEAGE_LIMIT = 100;

/** Beside what `krt cdktf` built last: the SHA-256 of the committed snapshot it built from. */
export const BUILT_FROM_FILE = '.krt-built-from';

export interface Lineage {
  /** The SHA-256 of the snapshot this chain leads to. */
  readonly snapshot: string;
  /** The SHA-256 of each snapshot an accepted synth judged against, oldest first. */
  readonly judgedAgainst: readonly string[];
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The lineage in `outDir`, or undefined when there is none that can be read. */
export function readLineage(outDir: string): Lineage | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(outDir, LINEAGE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return parseLineage(text);
}

/** A lineage file's text as a lineage, or undefined when it is not one (a merge left it unreadable, say): it then vouches for nothing. */
export function parseLineage(text: string): Lineage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { snapshot, judgedAgainst } = (parsed ?? {}) as Partial<Record<keyof Lineage, unknown>>;
  if (typeof snapshot !== 'string' || !SHA256.test(snapshot)) return undefined;
  if (!Array.isArray(judgedAgainst) || !judgedAgainst.every((h) => typeof h === 'string' && SHA256.test(h))) return undefined;
  return { snapshot, judgedAgainst: judgedAgainst as string[] };
}

/**
 * The lineage a synth writes beside `snapshot`, given the committed snapshot's SHA-256
 * (undefined before the first synth) and the committed lineage. An unchanged snapshot keeps
 * its lineage (none when it had none that belongs to it); a changed one extends the chain
 * with the snapshot it was judged against.
 */
export function lineageFile(committedSha: string | undefined, committed: Lineage | undefined, snapshot: string): GeneratedFile | undefined {
  const belongs = committed && committed.snapshot === committedSha ? committed : undefined;
  const sha = contentHash(snapshot);
  if (sha === committedSha) return belongs && fileOf(belongs);
  if (committedSha === undefined) return undefined;
  return fileOf({ snapshot: sha, judgedAgainst: [...(belongs?.judgedAgainst ?? []), committedSha].slice(-LINEAGE_LIMIT) });
}

function fileOf(lineage: Lineage): GeneratedFile {
  const content = { '//': GENERATED_NOTICE, snapshot: lineage.snapshot, judgedAgainst: lineage.judgedAgainst };
  return { path: LINEAGE_FILE, content: `${JSON.stringify(content, null, 2)}\n` };
}

/**
 * Whether the committed snapshot (`committedSha`) is the one a build was made from
 * (`builtFrom`), or descends from it through accepted synths, by `lineage`.
 */
export function descendsFrom(committedSha: string, lineage: Lineage | undefined, builtFrom: string | undefined): boolean {
  if (builtFrom === undefined) return false;
  if (builtFrom === committedSha) return true;
  return lineage !== undefined && lineage.snapshot === committedSha && lineage.judgedAgainst.includes(builtFrom);
}

/** The committed snapshot a build in `buildDir` was made from, when it recorded one. */
export function readBuiltFrom(buildDir: string): string | undefined {
  try {
    const text = readFileSync(path.join(buildDir, BUILT_FROM_FILE), 'utf8').trim();
    return SHA256.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records a build: first forgets what the last one was made from, then `write`s the build's
 * own record, then names the committed snapshot it was made from. A crash between the steps
 * leaves no record of where the build came from, so the next one is judged, never waved
 * through on an older build's word.
 */
export function recordBuild(buildDir: string, builtFrom: string, write: () => void): void {
  rmSync(path.join(buildDir, BUILT_FROM_FILE), { force: true });
  write();
  writeFileSync(path.join(buildDir, BUILT_FROM_FILE), `${builtFrom}\n`);
}
