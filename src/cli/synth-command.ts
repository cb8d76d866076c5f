import { readdirSync } from 'node:fs';
import path from 'node:path';
import { krtFingerprint } from '../cache/fingerprint';
import { OutputHashes } from '../cache/output-hashes';
import { modelKey, SynthCache, TRANSPILE_DIR } from '../cache/synth-cache';
import type { CachedOutput } from '../cache/synth-cache';
import { compileFiles } from '../compile';
import type { GeneratedFile } from '../emitters/types';
import { deepFreeze } from '../model/build';
import type { ProjectModel, TopologyModel } from '../model/types';
import { guardChanges, readBaseline, withRemovedStacks, withUntouched } from '../plan';
import { compareStrings } from '../util/compare';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile } from '../writer/model-snapshot';
import { contentHash, OutputFolder } from '../writer/write-generated';
import { EXIT } from './io';
import type { CliIo } from './io';
import { describeModel, plural, reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';
import { DefectError } from '../runtime/krt-error';

export interface SynthOptions {
  readonly check: boolean;
  readonly out: string;
  /** Reuse what earlier runs generated from unchanged inputs (default); `--no-cache` turns it off. */
  readonly cache?: boolean;
}

/** The emitters load cdktf, handlebars and the Grafana SDK: required only when a topology is rebuilt. */
const emitters = (): typeof import('../emitters') => require('../emitters') as typeof import('../emitters');

export async function synthCommand(io: CliIo, args: readonly string[], options: SynthOptions): Promise<number> {
  const files = resolveTopologyFiles(io.cwd, args);
  const outDir = path.resolve(io.cwd, options.out);
  // No fingerprint (a library version that cannot be read): no cache, as with --no-cache.
  const fingerprint = options.cache !== false ? krtFingerprint() : undefined;
  const cache = fingerprint === undefined ? undefined : new SynthCache(io.cwd, fingerprint);
  const hashes = new OutputHashes(cache, outDir);

  // Every topology file is loaded and validated on every run, cache or not: what a spec's
  // code reads while it loads (helpers, data, the environment, other files) is in the
  // model it yields, and the cache is keyed on that model alone. The loader's own cache
  // of compiled TypeScript is checked against each file's text, so it is safe to keep.
  const result = await compileFiles(files, io.cwd, cache && { transpileCache: path.join(io.cwd, TRANSPILE_DIR) });
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const shownOut = path.relative(io.cwd, outDir) || '.';
  // A synth of some files keeps the other topologies as committed (see withUntouched), and
  // every synth keeps the stacks of deleted topology files (see withRemovedStacks).
  const baseline = !options.check || args.length > 0 || hasOtherStacks(outDir, result.model) ? readBaseline(outDir, io.cwd) : undefined;
  const model = withRemovedStacks(baseline, args.length > 0 ? withUntouched(baseline, result.model, files, io.cwd) : result.model);

  // Only writing is guarded: --check says whether generated/ matches, `krt plan` why not.
  if (!options.check) {
    const refused = guardChanges(baseline, model);
    if (reportDiagnostics(io, { diagnostics: refused })) return EXIT.problems;
  }

  const folder = new OutputFolder(outDir, options.check ? 'check' : 'write');
  const paths: string[] = [];
  const jsons: string[] = [];
  const keys: string[] = [];
  let reused = 0;
  for (const topology of model.topologies) {
    // The model after every step across files (a move's hand-over included), as JSON: the
    // emitters get this very text back, parsed, so their output is a function of what it is keyed on.
    const json = JSON.stringify(topology);
    const key = cache && modelKey(cache.fingerprint, json);
    const known = key !== undefined ? cache?.get('model', key) : undefined;
    let outputs: readonly CachedOutput[];
    if (known && verified(hashes, known.outputs)) {
      outputs = known.outputs;
      reused++;
    } else {
      outputs = emitInto(folder, emitters().emitTopology(fromJson<TopologyModel>(json)));
      if (key !== undefined) cache?.put('model', key, { outputs });
    }
    paths.push(...outputs.map((o) => o.path));
    jsons.push(json);
    if (key !== undefined) keys.push(key);
  }
  // The files that read every topology (the runbook index): keyed on every model's key, in order.
  const projectKey = cache && modelKey(cache.fingerprint, `project\0${keys.join('\0')}`);
  const known = projectKey !== undefined ? cache?.get('project', projectKey) : undefined;
  const projectOutputs = known && verified(hashes, known.outputs) ? known.outputs : emitInto(folder, emitters().emitProjectFiles(fromJson<ProjectModel>(`{"topologies":[${jsons.join(',')}]}`)));
  if (projectKey !== undefined && projectOutputs !== known?.outputs) cache?.put('project', projectKey, { outputs: projectOutputs });
  paths.push(...projectOutputs.map((o) => o.path));
  paths.sort(compareStrings);
  const doubled = paths.find((p, i) => i > 0 && paths[i - 1] === p);
  if (doubled) throw new DefectError(`two emitters produced ${doubled}`);
  folder.put(modelSnapshotFile(model));
  const summary = folder.finish([...paths, MODEL_SNAPSHOT_FILE]);
  hashes.save();
  cache?.save();

  if (options.check) {
    if (summary.drift.length === 0) {
      io.stdout(`ok: ${shownOut}/ is up to date with ${describeModel(result)}\n`);
      return EXIT.ok;
    }
    for (const d of summary.drift) io.stderr(`${d.reason.padEnd(7)} ${path.join(shownOut, d.path)}\n`);
    io.stderr(`${plural(summary.drift.length, 'file')} out of date: run \`krt synth\` and commit the result\n`);
    return EXIT.problems;
  }
  for (const file of summary.written) io.stdout(`wrote   ${path.join(shownOut, file)}\n`);
  for (const file of summary.removed) io.stdout(`removed ${path.join(shownOut, file)}\n`);
  const reusedNote = reused > 0 ? `; ${reused} of ${plural(model.topologies.length, 'topology', 'topologies')} unchanged, reused from the cache` : '';
  io.stdout(
    `synthesized ${describeModel(result)} into ${shownOut}/: ${plural(summary.written.length, 'file')} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed${reusedNote}\n`,
  );
  return EXIT.ok;
}

/**
 * Whether the output folder has a Terraform stack that no topology generates: the stack
 * of a deleted topology file, kept in the committed snapshot, which a check must then read.
 * Listing one folder is cheap; parsing the snapshot of a large repository is not.
 */
function hasOtherStacks(outDir: string, model: ProjectModel): boolean {
  let stacks: string[];
  try {
    stacks = readdirSync(path.join(outDir, 'terraform'));
  } catch {
    return false;
  }
  const generated = new Set(model.topologies.flatMap((t) => [t.name, ...(t.handedOver ?? []).map((h) => h.stack)]));
  return stacks.some((stack) => !generated.has(stack));
}

/** A model as the emitters get it: parsed from the JSON it is keyed by, and frozen as the compiled model is. */
function fromJson<T>(json: string): T {
  return deepFreeze(JSON.parse(json) as T);
}

/** Whether every file of a cached record is in the output folder with the content it had (hashed, so a hand edit or a deletion is always seen). */
function verified(hashes: OutputHashes, outputs: readonly CachedOutput[]): boolean {
  return outputs.every((o) => hashes.hash(o.path) === o.sha256);
}

/** Puts every file into the folder as it comes, keeping only its path and hash. */
function emitInto(folder: OutputFolder, files: Iterable<GeneratedFile>): CachedOutput[] {
  const outputs: CachedOutput[] = [];
  for (const file of files) {
    folder.put(file);
    outputs.push({ path: file.path, sha256: contentHash(file.content) });
  }
  return outputs;
}
