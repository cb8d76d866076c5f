import type { OutputHashes } from '../cache/output-hashes';
import type { SynthCache } from '../cache/synth-cache';
import type { ProjectModel } from '../model/types';
import type { ModelKeys } from './model-keys';

/** The path of a committed stack's Terraform in the output folder, as the Terraform emitter writes it. */
const STACK_FILE = /^terraform\/([^/]+)\/cdk\.tf\.json$/;

/**
 * The committed stacks the guards need not read (a large repository's are tens of
 * megabytes of JSON): each is, by its SHA-256, the very file the emitter made of the
 * snapshot's model of a topology that the specs still compile to the same model, as the
 * cache's record of that model lists it. Such a stack says what the snapshot says, and the
 * emitter is pure: a guard that needs it synthesizes it from the snapshot and gets the same
 * resources, and for a topology that did not change none does. Any other stack is read:
 * one whose file differs from what krt wrote (a hand edit, a merge), of a topology that
 * changed, or that no record lists.
 */
export function stacksAsGenerated(baseline: ProjectModel, current: ProjectModel, models: ModelKeys, cache: SynthCache, hashes: OutputHashes): Set<string> {
  const now = new Set(current.topologies.map((t) => models.of(t).key));
  const stacks = new Set<string>();
  for (const topology of baseline.topologies) {
    const { key } = models.of(topology);
    if (key === undefined || !now.has(key)) continue;
    for (const output of cache.get('model', key)?.outputs ?? []) {
      const stack = STACK_FILE.exec(output.path)?.[1];
      if (stack !== undefined && hashes.hash(output.path) === output.sha256) stacks.add(stack);
    }
  }
  return stacks;
}
