import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeptStack } from '../model/types';

/**
 * Where synth keeps what it knows about earlier runs, as other tools do
 * (`node_modules/.cache/<tool>`): never committed, and safe to delete at any time.
 */
export const CACHE_DIR = path.join('node_modules', '.cache', 'kafka-retry-topology');
/** Renamed when the records' shape changes: another version's records are never read. */
export const STORE_DIR = path.join(CACHE_DIR, 'synth-v3');
/** Where the topology loader keeps the JavaScript it compiled each topology file and helper to (see `load-topologies.ts`). */
export const TRANSPILE_DIR = path.join(CACHE_DIR, 'loader');
/** The stores of earlier shapes, removed when this one is written. */
const OLD_STORES = [path.join(CACHE_DIR, 'synth.json'), path.join(CACHE_DIR, 'synth-v2')];

/** A generated file as the cache remembers it: its path and the SHA-256 of its content. */
export interface CachedOutput {
  readonly path: string;
  readonly sha256: string;
}

/** The files generated from one topology's model, keyed by the SHA-256 of that model's JSON with krt's fingerprint. */
export interface ModelRecord {
  readonly outputs: readonly CachedOutput[];
}

/** The files that read every topology (the runbook index), keyed on every topology's model. */
export interface ProjectRecord {
  readonly outputs: readonly CachedOutput[];
}

/**
 * A model snapshot this krt wrote, keyed by the SHA-256 of the file: the key of each
 * topology's model in it, in order (see `known-baseline.ts`).
 */
export interface SnapshotRecord {
  readonly topologies: readonly string[];
  /** The kept stacks of deleted topology files, as the snapshot has them (few and small). */
  readonly keptStacks?: readonly KeptStack[];
}

/** What `output-hashes.ts` knows of the files in one output folder, by path. */
export interface FolderRecord {
  readonly files: Readonly<Record<string, readonly [number, number, number, number, string, number]>>;
}

/**
 * The key of what the emitters make of a model: the SHA-256 of krt's fingerprint and the
 * model's JSON, the very text the emitters are then given (parsed) when it is not cached.
 */
export function modelKey(fingerprint: string, json: string): string {
  return createHash('sha256').update(fingerprint).update('\0').update(json).digest('hex');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOutputs = (value: unknown) => Array.isArray(value) && value.every((o) => isObject(o) && typeof o.path === 'string' && typeof o.sha256 === 'string');
const isStatus = (value: unknown) => Array.isArray(value) && value.length === 6 && value.every((v, i) => typeof v === (i === 4 ? 'string' : 'number'));

/**
 * The shape each kind of record must have to be used at all: a damaged one is ignored,
 * never half-trusted. Checked by hand: a folder's record holds a status per generated file
 * (1,800 in a large repository), which a schema library took tens of milliseconds to check.
 */
const SCHEMAS = {
  model: (value: unknown) => isObject(value) && isOutputs(value.outputs),
  project: (value: unknown) => isObject(value) && isOutputs(value.outputs),
  folder: (value: unknown) => isObject(value) && isObject(value.files) && Object.values(value.files).every(isStatus),
  snapshot: (value: unknown) =>
    isObject(value) &&
    Array.isArray(value.topologies) &&
    value.topologies.every((key) => typeof key === 'string') &&
    (value.keptStacks === undefined || (Array.isArray(value.keptStacks) && value.keptStacks.every((k) => isObject(k) && typeof k.stack === 'string' && isObject(k.cluster)))),
};
type Kind = keyof typeof SCHEMAS;
type RecordOf<K extends Kind> = { model: ModelRecord; project: ProjectRecord; folder: FolderRecord; snapshot: SnapshotRecord }[K];
/** Records of every kind: the JSON records above, and each topology model's own JSON (`modelJson`), keyed by its model key. */
type StoreKind = Kind | 'json';

/**
 * Records of a kind kept when the store is pruned: those of this run, and older ones up
 * to this many. A model's JSON is the largest record (some 5 KB a consumer); a run uses
 * every current topology's, so only earlier versions are pruned.
 */
const KEEP = { model: 4000, project: 50, folder: 20, snapshot: 20, json: 500 } satisfies Record<StoreKind, number>;

/**
 * The synth cache: what the emitters made of each topology's model, so that an unchanged
 * model is not emitted again. It holds no spec: every topology file is loaded and
 * validated on every run, and only the emitters' work, a pure function of the model and
 * of krt (its fingerprint), is looked up. It also keeps each model's JSON and which models
 * a snapshot it wrote holds, so that the committed snapshot need not be read again (see
 * `known-baseline.ts`). One small file per record, named by its key, so a run reads the
 * records of the models it synthesizes and writes only what is new. Nothing a run does
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
  /** Records read this run, parsed: the guards and the emitters ask for the same ones. */
  private readonly read = new Map<string, unknown>();

  constructor(
    private readonly cwd: string,
    readonly fingerprint: string,
  ) {}

  private file(kind: StoreKind, key: string): string {
    return path.join(this.cwd, STORE_DIR, kind, `${key}.json`);
  }

  /** A record's JSON text when its checksum holds, else undefined. */
  private body(file: string): string | undefined {
    let text: string;
    try {
      text = this.pending.get(file) ?? readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    const newline = text.indexOf('\n');
    const body = text.slice(newline + 1);
    if (newline !== 64 || text.slice(0, 64) !== sha256(body)) return undefined;
    return body;
  }

  get<K extends Kind>(kind: K, key: string): RecordOf<K> | undefined {
    const file = this.file(kind, key);
    if (this.read.has(file)) return this.read.get(file) as RecordOf<K>;
    const body = this.body(file);
    if (body === undefined) return undefined;
    let record: unknown;
    try {
      record = JSON.parse(body);
    } catch {
      return undefined;
    }
    if (!SCHEMAS[kind](record)) return undefined;
    this.used.add(file);
    this.read.set(file, record);
    return record as RecordOf<K>;
  }

  put<K extends Kind>(kind: K, key: string, record: RecordOf<K>): void {
    this.write(this.file(kind, key), JSON.stringify(record));
  }

  /**
   * A topology model's JSON, stored under its model key: only when it hashes to that key
   * with this fingerprint, so a record moved, damaged to other JSON or of another krt is a miss.
   */
  modelJson(key: string): string | undefined {
    const file = this.file('json', key);
    const json = this.body(file);
    if (json === undefined || modelKey(this.fingerprint, json) !== key) return undefined;
    this.used.add(file);
    return json;
  }

  /** Stores a model's JSON under its key, unless it is stored already (then it is kept from pruning). */
  keepModelJson(key: string, json: string): void {
    const file = this.file('json', key);
    if (this.used.has(file)) return;
    if (existsSync(file)) this.used.add(file);
    else this.write(file, json);
  }

  private write(file: string, body: string): void {
    this.read.delete(file);
    this.used.add(file);
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
        for (const kind of Object.keys(KEEP) as StoreKind[]) this.prune(kind);
        // What earlier versions kept (up to 3 MB for a large repository): never read again.
        for (const old of OLD_STORES) rmSync(path.join(this.cwd, old), { recursive: true, force: true });
      }
    } catch {
      // As above: slower next time, never wrong.
    }
    this.pending.clear();
  }

  private prune(kind: StoreKind): void {
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
