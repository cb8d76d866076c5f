import type { OutputHashes } from '../cache/output-hashes';
import { modelKey } from '../cache/synth-cache';
import type { SynthCache } from '../cache/synth-cache';
import { deepFreeze } from '../model/build';
import type { ProjectModel, TopologyModel } from '../model/types';
import { MODEL_SNAPSHOT_FILE } from '../writer/model-snapshot';
import { contentHash } from '../writer/write-generated';
import type { ModelKeys } from './model-keys';

/** The key of what the cache knows of a snapshot file: its SHA-256, with krt's fingerprint. */
const snapshotKey = (fingerprint: string, sha256: string) => modelKey(fingerprint, `snapshot\0${sha256}`);

/**
 * The committed model snapshot without reading it: a large repository's is megabytes of
 * JSON, read, parsed and checked against its schema on every synth. When the file is, by
 * its SHA-256, one this krt wrote (fingerprint and all), the cache knows the key of every
 * topology model in it; each is then the model the specs compile to now when the keys are
 * equal (the same JSON: the same object serves both sides, which the guards then see as
 * unchanged at a glance, unless it is not plain JSON: see `ModelKeys.parsed`), else that
 * model's JSON from the cache, checked against its key.
 * Anything not known so (another file, another krt, a record pruned or damaged):
 * undefined, and the caller reads and checks the snapshot as without a cache.
 */
export function knownBaseline(cache: SynthCache, hashes: OutputHashes, models: ModelKeys, current: ProjectModel): ProjectModel | undefined {
  const sha = hashes.hash(MODEL_SNAPSHOT_FILE);
  const record = sha === undefined ? undefined : cache.get('snapshot', snapshotKey(cache.fingerprint, sha));
  if (!record) return undefined;
  const now = new Map(current.topologies.map((t) => [models.of(t).key, t]));
  const topologies: TopologyModel[] = [];
  for (const key of record.topologies) {
    const same = now.get(key);
    if (same) {
      topologies.push(models.parsed(same));
      continue;
    }
    const json = cache.modelJson(key);
    if (json === undefined) return undefined;
    topologies.push(deepFreeze(JSON.parse(json) as TopologyModel));
  }
  return record.keptStacks ? { topologies, keptStacks: deepFreeze(record.keptStacks) } : { topologies };
}

/**
 * Remembers the snapshot the output folder now holds (`content`, written or found equal):
 * the keys of its models, and each model's JSON, for `knownBaseline` on the next run.
 */
export function rememberBaseline(cache: SynthCache, models: ModelKeys, model: ProjectModel, content: string): void {
  const keys: string[] = [];
  for (const topology of model.topologies) {
    const { json, key } = models.of(topology);
    if (key === undefined) return;
    cache.keepModelJson(key, json);
    keys.push(key);
  }
  const kept = model.keptStacks && model.keptStacks.length > 0 ? { keptStacks: model.keptStacks } : {};
  cache.put('snapshot', snapshotKey(cache.fingerprint, contentHash(content)), { topologies: keys, ...kept });
}
