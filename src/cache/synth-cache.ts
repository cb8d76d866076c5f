import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { TopologyModel } from '../model/types';
import type { Diagnostic } from '../validate/diagnostic';

/**
 * Where synth keeps what it knows about earlier runs, as other tools do
 * (`node_modules/.cache/<tool>`): never committed, and safe to delete at any time.
 */
export const CACHE_DIR = path.join('node_modules', '.cache', 'kafka-retry-topology');
const CACHE_FILE = 'synth.json';

/** Bumped when the cache's shape changes; another version's cache is ignored. */
const CACHE_VERSION = 1;

/** A generated file as the cache remembers it: its path and the SHA-256 of its content. */
export interface CachedOutput {
  readonly path: string;
  readonly sha256: string;
}

/** One topology file as the last successful synth of it left it. */
export interface CacheEntry {
  /** Its source key, when the file depends on nothing but its text and its local imports. */
  readonly source?: string;
  /** The SHA-256 of its model (with krt's fingerprint): what its outputs are a function of. */
  readonly model: string;
  readonly topology: TopologyModel;
  /** Warnings of this file alone (a cached file had no errors). */
  readonly diagnostics: readonly Diagnostic[];
  readonly outputs: readonly CachedOutput[];
}

/** Files that read every topology (the runbook index), keyed on the whole project's model. */
export interface ProjectEntry {
  readonly model: string;
  readonly outputs: readonly CachedOutput[];
}

export interface SynthCache {
  readonly version: number;
  readonly fingerprint: string;
  readonly entries: readonly CacheEntry[];
  readonly project?: ProjectEntry;
}

export function emptyCache(fingerprint: string): SynthCache {
  return { version: CACHE_VERSION, fingerprint, entries: [] };
}

/** The SHA-256 of a model with krt's fingerprint: equal keys, equal outputs. */
export function modelKey(fingerprint: string, model: unknown): string {
  return createHash('sha256').update(fingerprint).update('\0').update(JSON.stringify(model)).digest('hex');
}

const outputsSchema = z.array(z.object({ path: z.string(), sha256: z.string() }));

/** The shape a cache must have to be used at all: a damaged one is ignored, never half-trusted. */
const cacheSchema = z.object({
  version: z.literal(CACHE_VERSION),
  fingerprint: z.string(),
  entries: z.array(
    z.object({
      source: z.string().optional(),
      model: z.string(),
      topology: z.custom<TopologyModel>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
      diagnostics: z.array(z.custom<Diagnostic>((value) => typeof value === 'object' && value !== null)),
      outputs: outputsSchema,
    }),
  ),
  project: z.object({ model: z.string(), outputs: outputsSchema }).optional(),
});

/** The cache of the project in `cwd`, or an empty one when there is none, it is damaged, or another krt wrote it. */
export function readCache(cwd: string, fingerprint: string): SynthCache {
  try {
    const parsed = cacheSchema.safeParse(JSON.parse(readFileSync(path.join(cwd, CACHE_DIR, CACHE_FILE), 'utf8')));
    if (!parsed.success || parsed.data.fingerprint !== fingerprint) return emptyCache(fingerprint);
    return parsed.data;
  } catch {
    return emptyCache(fingerprint);
  }
}

/** Replaces the cache in one rename, so a concurrent synth reads the old one or the new one, never half. */
export function writeCache(cwd: string, cache: SynthCache): void {
  const dir = path.join(cwd, CACHE_DIR);
  try {
    mkdirSync(dir, { recursive: true });
    const temporary = path.join(dir, `${CACHE_FILE}.${process.pid}.tmp`);
    writeFileSync(temporary, JSON.stringify(cache));
    renameSync(temporary, path.join(dir, CACHE_FILE));
  } catch {
    // A cache that cannot be written makes the next synth slower, never wrong.
  }
}
