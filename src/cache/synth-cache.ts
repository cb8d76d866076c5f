import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { TopologyModel } from '../model/types';
import type { Diagnostic } from '../validate/diagnostic';

/**
 * Where synth keeps what it knows about earlier runs, as other tools do
 * (`node_modules/.cache/<tool>`): never committed, and safe to delete at any time.
 */
export const CACHE_DIR = path.join('node_modules', '.cache', 'kafka-retry-topology');
/** Renamed when the records' shape changes: another version's records are never read. */
export const STORE_DIR = path.join(CACHE_DIR, 'synth-v2');

/** A generated file as the cache remembers it: its path and the SHA-256 of its content. */
export interface CachedOutput {
  readonly path: string;
  readonly sha256: string;
}

/** A topology file whose source key is known: the model it compiled to and its warnings (a cached file had no errors). */
export interface SourceRecord {
  readonly model: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** A topology model (keyed by its SHA-256 with krt's fingerprint) and the files generated from it. */
export interface ModelRecord {
  readonly topology: TopologyModel;
  readonly outputs: readonly CachedOutput[];
}

/** The files that read every topology (the runbook index), keyed on the whole project's model. */
export interface ProjectRecord {
  readonly outputs: readonly CachedOutput[];
}

/** The local modules a source text imports (see `import-scan.ts`); null when it cannot be cached. */
export interface ScanRecord {
  readonly imports: readonly string[] | null;
}

/** What `output-hashes.ts` knows of the files in one output folder, by path. */
export interface FolderRecord {
  readonly files: Readonly<Record<string, readonly [number, number, number, number, string, number]>>;
}

/** One topology file as the cache knows it: what `compileWithCache` and synth use. */
export interface CacheEntry {
  /** Its source key, when the file depends on nothing but its text and its local imports. */
  readonly source?: string;
  /** The SHA-256 of its model (with krt's fingerprint): what its outputs are a function of. */
  readonly model: string;
  readonly topology: TopologyModel;
  readonly diagnostics: readonly Diagnostic[];
  readonly outputs: readonly CachedOutput[];
}

/** The SHA-256 of a model with krt's fingerprint: equal keys, equal outputs. */
export function modelKey(fingerprint: string, model: unknown): string {
  return createHash('sha256').update(fingerprint).update('\0').update(JSON.stringify(model)).digest('hex');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const outputsSchema = z.array(z.object({ path: z.string(), sha256: z.string() }));
const objectLike = (value: unknown) => typeof value === 'object' && value !== null;

/** The shape each kind of record must have to be used at all: a damaged one is ignored, never half-trusted. */
const SCHEMAS = {
  source: z.object({ model: z.string(), diagnostics: z.array(z.custom<Diagnostic>(objectLike)) }),
  model: z.object({ topology: z.custom<TopologyModel>((v) => objectLike(v) && !Array.isArray(v)), outputs: outputsSchema }),
  project: z.object({ outputs: outputsSchema }),
  scan: z.object({ imports: z.array(z.string()).nullable() }),
  folder: z.object({ files: z.record(z.string(), z.tuple([z.number(), z.number(), z.number(), z.number(), z.string(), z.number()])) }),
};
type Kind = keyof typeof SCHEMAS;
type RecordOf<K extends Kind> = { source: SourceRecord; model: ModelRecord; project: ProjectRecord; scan: ScanRecord; folder: FolderRecord }[K];

/** Records of a kind kept when the store is pruned: those of this run, and older ones up to this many. */
const KEEP = { source: 2000, model: 2000, project: 50, scan: 4000, folder: 20 } satisfies Record<Kind, number>;

/**
 * The synth cache: one small file per record, named by its key, so a run reads the
 * records of the files it synthesizes and writes only what is new. Nothing a run does
 * replaces another topology's records: a synth of one file, into another folder, or one
 * that was refused leaves the rest as it was. Every key includes krt's fingerprint.
 *
 * A record file is the SHA-256 of its JSON on the first line, then the JSON: a damaged or
 * half-written record is a miss. Records a run uses are touched, and pruning removes the
 * least recently used beyond a bound.
 */
export class SynthCache {
  private readonly used = new Set<string>();
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly cwd: string,
    readonly fingerprint: string,
  ) {}

  private file(kind: Kind, key: string): string {
    return path.join(this.cwd, STORE_DIR, kind, `${key}.json`);
  }

  get<K extends Kind>(kind: K, key: string): RecordOf<K> | undefined {
    const file = this.file(kind, key);
    let text: string;
    try {
      text = this.pending.get(file) ?? readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    const newline = text.indexOf('\n');
    const body = text.slice(newline + 1);
    if (newline !== 64 || text.slice(0, 64) !== sha256(body)) return undefined;
    try {
      const parsed = SCHEMAS[kind].safeParse(JSON.parse(body));
      if (!parsed.success) return undefined;
      this.used.add(file);
      return parsed.data as RecordOf<K>;
    } catch {
      return undefined;
    }
  }

  put<K extends Kind>(kind: K, key: string, record: RecordOf<K>): void {
    const file = this.file(kind, key);
    this.used.add(file);
    const body = JSON.stringify(record);
    this.pending.set(file, `${sha256(body)}\n${body}`);
  }

  /** Writes the new records (each in one rename), touches the ones used, and prunes. A cache that cannot be written makes the next synth slower, never wrong. */
  save(): void {
    try {
      for (const [file, text] of this.pending) {
        mkdirSync(path.dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, text);
        renameSync(temporary, file);
      }
      const now = new Date();
      for (const file of this.used) if (!this.pending.has(file)) utimesSync(file, now, now);
      if (this.pending.size > 0) {
        for (const kind of Object.keys(KEEP) as Kind[]) this.prune(kind);
        // The one file of the cache before #27, 3 MB for a large repository: never read again.
        rmSync(path.join(this.cwd, CACHE_DIR, 'synth.json'), { force: true });
      }
    } catch {
      // As above: slower next time, never wrong.
    }
    this.pending.clear();
  }

  private prune(kind: Kind): void {
    const dir = path.join(this.cwd, STORE_DIR, kind);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    if (names.length <= KEEP[kind]) return;
    const files = names.map((name) => path.join(dir, name)).filter((file) => !this.used.has(file));
    const byAge = files.map((file) => ({ file, mtime: statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => b.mtime - a.mtime);
    for (const { file } of byAge.slice(Math.max(0, KEEP[kind] - (names.length - files.length)))) rmSync(file, { force: true });
  }
}
