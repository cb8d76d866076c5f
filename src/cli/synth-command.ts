import path from 'node:path';
import { compileWithCache } from '../cache/cached-compile';
import type { CachedCompileResult } from '../cache/cached-compile';
import { krtFingerprint } from '../cache/fingerprint';
import { OutputHashes } from '../cache/output-hashes';
import { modelKey, SynthCache } from '../cache/synth-cache';
import type { CachedOutput, ModelRecord } from '../cache/synth-cache';
import type { GeneratedFile } from '../emitters/types';
import type { ProjectModel, TopologyModel } from '../model/types';
import { guardChanges, readBaseline, withUntouched } from '../plan';
import { compareStrings } from '../util/compare';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile } from '../writer/model-snapshot';
import { contentHash, OutputFolder } from '../writer/write-generated';
import { EXIT } from './io';
import type { CliIo } from './io';
import { describeModel, plural, reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

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

  let result = await compileWithCache(files, io.cwd, cache);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  let reuse = reusable(result.model, result, cache, hashes);
  // An unchanged file whose outputs are gone or edited is loaded after all: emitters only ever see fresh models.
  const reload = result.model.topologies.filter((t) => !reuse.has(t) && result.files.get(t.source.file)?.cached).map((t) => t.source.file);
  if (reload.length > 0) {
    result = await compileWithCache(files, io.cwd, cache, new Set(reload));
    if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
    reuse = reusable(result.model, result, cache, hashes);
  }
  const shownOut = path.relative(io.cwd, outDir) || '.';
  // A synth of some files keeps the other topologies as committed (see withUntouched).
  const baseline = !options.check || args.length > 0 ? readBaseline(outDir, io.cwd) : undefined;
  const model = args.length > 0 ? withUntouched(baseline, result.model, files, io.cwd) : result.model;

  // Only writing is guarded: --check says whether generated/ matches, `krt plan` why not.
  if (!options.check) {
    const refused = guardChanges(baseline, model);
    if (reportDiagnostics(io, { diagnostics: refused })) return EXIT.problems;
  }

  const folder = new OutputFolder(outDir, options.check ? 'check' : 'write');
  const paths: string[] = [];
  for (const topology of model.topologies) {
    const info = result.files.get(topology.source.file);
    const reused = reuse.get(topology);
    const outputs = reused ? reused.outputs : emitInto(folder, emitters().emitTopology(topology));
    paths.push(...outputs.map((o) => o.path));
    // A topology kept from the committed model (a synth of other files) is emitted as it was, outside the cache.
    if (cache && info) {
      const key = reused?.key ?? modelKey(cache.fingerprint, topology);
      if (!reused) cache.put('model', key, { topology, outputs });
      if (info.source && info.cached?.model !== key) cache.put('source', info.source, { model: key, diagnostics: info.compiled.diagnostics });
    }
  }
  const snapshot = modelSnapshotFile(model);
  // The snapshot is the whole model as JSON: its hash keys the files that read every topology.
  const projectKey = cache && contentHash(`${cache.fingerprint}\0${snapshot.content}`);
  const known = projectKey ? cache?.get('project', projectKey) : undefined;
  const projectOutputs = known && verified(hashes, known.outputs) ? known.outputs : emitInto(folder, emitters().emitProjectFiles(model));
  if (projectKey && projectOutputs !== known?.outputs) cache?.put('project', projectKey, { outputs: projectOutputs });
  paths.push(...projectOutputs.map((o) => o.path));
  paths.sort(compareStrings);
  const doubled = paths.find((p, i) => i > 0 && paths[i - 1] === p);
  if (doubled) throw new Error(`two emitters produced ${doubled}`);
  folder.put(snapshot);
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
  const reusedNote = reuse.size > 0 ? `; ${reuse.size} of ${plural(model.topologies.length, 'topology', 'topologies')} unchanged, reused from the cache` : '';
  io.stdout(
    `synthesized ${describeModel(result)} into ${shownOut}/: ${plural(summary.written.length, 'file')} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed${reusedNote}\n`,
  );
  return EXIT.ok;
}

/**
 * The topologies whose outputs need not be generated again: the cache has an entry for
 * their exact model under this krt, and every file it lists is in the output folder
 * with the content it had (hashed, so a hand edit or a deletion is always seen).
 */
function reusable(model: ProjectModel, result: CachedCompileResult, cache: SynthCache | undefined, hashes: OutputHashes): Map<TopologyModel, ModelRecord & { key: string }> {
  const reuse = new Map<TopologyModel, ModelRecord & { key: string }>();
  if (!cache) return reuse;
  for (const topology of model.topologies) {
    // A model that came from the cache has its key in the record; a loaded one is hashed.
    const cached = result.files.get(topology.source.file)?.cached;
    const key = cached?.topology === topology ? cached.model : modelKey(cache.fingerprint, topology);
    const record = cached?.model === key ? cached : cache.get('model', key);
    if (record && verified(hashes, record.outputs)) reuse.set(topology, { key, topology, outputs: record.outputs });
  }
  return reuse;
}

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
