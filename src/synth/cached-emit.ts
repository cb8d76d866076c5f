import type { OutputHashes } from '../cache/output-hashes';
import { modelKey } from '../cache/synth-cache';
import type { CachedOutput, SynthCache } from '../cache/synth-cache';
import type { GeneratedFile } from '../emitters/types';
import { deepFreeze } from '../model/build';
import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { DefectError } from '../runtime/krt-error';
import { contentHash } from '../writer/write-generated';
import type { OutputFolder } from '../writer/write-generated';
import type { ModelKeys } from './model-keys';

/** The emitters load cdktf, handlebars and the Grafana SDK: required only when a topology is rebuilt. */
const emitters = (): typeof import('../emitters') => require('../emitters') as typeof import('../emitters');

export interface EmittedPaths {
  /** Every path the model's outputs take, sorted. */
  readonly paths: readonly string[];
  /** How many topologies' outputs came from the cache. */
  readonly reused: number;
}

/**
 * Puts every output of the model into the folder: a topology's outputs from the cache when
 * its model (as JSON, with krt's fingerprint) was emitted before and the folder still holds
 * those very files, else emitted again; then the files that read every topology, keyed on
 * every model's key in order.
 */
export function emitModel(model: ProjectModel, folder: OutputFolder, cache: SynthCache | undefined, hashes: OutputHashes, models: ModelKeys): EmittedPaths {
  const paths: string[] = [];
  const keys: string[] = [];
  let reused = 0;
  for (const topology of model.topologies) {
    // The model after every step across files (a move's hand-over included), as JSON: the
    // emitters get what this very text parses to, so their output is a function of what it is keyed on.
    // (The keys are made with the cache's fingerprint: none without a cache.)
    const { key } = models.of(topology);
    const known = key !== undefined ? cache?.get('model', key) : undefined;
    let outputs: readonly CachedOutput[];
    if (known && verified(hashes, known.outputs)) {
      outputs = known.outputs;
      reused++;
    } else {
      // The model itself when it is plain JSON (what parsing its JSON gives back): then the
      // Terraform emitter finds the stacks the outcome guard built for this very object.
      outputs = emitInto(folder, emitters().emitTopology(models.parsed(topology)));
      if (key !== undefined) cache?.put('model', key, { outputs });
    }
    paths.push(...outputs.map((o) => o.path));
    if (key !== undefined) keys.push(key);
  }
  // The kept stacks are few and small: keyed by their JSON.
  const kept = model.keptStacks && model.keptStacks.length > 0 ? { keptStacks: model.keptStacks } : {};
  const projectKey = cache && modelKey(cache.fingerprint, `project\0${keys.join('\0')}\0${JSON.stringify(kept)}`);
  const known = projectKey !== undefined ? cache?.get('project', projectKey) : undefined;
  // Every topology as its JSON parses (the models themselves when plain JSON): a large repository's are megabytes to parse.
  const projectOutputs = known && verified(hashes, known.outputs) ? known.outputs : emitInto(folder, emitters().emitProjectFiles(deepFreeze<ProjectModel>({ topologies: model.topologies.map((t) => models.parsed(t)), ...kept })));
  if (projectKey !== undefined && projectOutputs !== known?.outputs) cache?.put('project', projectKey, { outputs: projectOutputs });
  paths.push(...projectOutputs.map((o) => o.path));
  paths.sort(compareStrings);
  const doubled = paths.find((p, i) => i > 0 && paths[i - 1] === p);
  if (doubled) throw new DefectError(`two emitters produced ${doubled}`);
  return { paths, reused };
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
