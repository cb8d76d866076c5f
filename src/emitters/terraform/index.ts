import type { Emitter, GeneratedFile } from '../types';
import type { ProjectModel, TopologyModel } from '../../model/types';
import { GENERATED_NOTICE } from '../types';
import { keptStacks, topologyStacks } from './topology-stack';
import { detachedApp } from './detached-app';
import { releasingCdktfTokens } from './released-tokens';
import type { TerraformStack } from 'cdktf';

export { FormerStack, keptStacks, TopologyStack, topologyStacks } from './topology-stack';

/**
 * Stacks the outcome guard synthesized for a few changed topologies, kept for the emitter,
 * which asks for the same ones next (cdktf builds a stack in about a tenth of a second).
 * Taken once; a synth of many topologies keeps none, so its peak memory stays one stack's.
 * Models are frozen (model/build.ts): one object always gives the same files.
 */
const kept = new WeakMap<TopologyModel, readonly GeneratedFile[]>();
const KEEP_AT_MOST = 10;

function synthesize(topology: TopologyModel): readonly GeneratedFile[] {
  return releasingCdktfTokens(() => stackFiles(topologyStacks(detachedApp(), topology)));
}

function stackFiles(stacks: readonly TerraformStack[]): GeneratedFile[] {
  return stacks.map((stack) => {
    const { '//': metadata, ...rest } = stack.toTerraform() as Record<string, unknown>;
    // Terraform JSON ignores "//" keys: the one place this format allows a comment.
    const json = { '//': { notice: GENERATED_NOTICE, ...(metadata as object) }, ...rest };
    return { path: `terraform/${stack.node.id}/cdk.tf.json`, content: `${JSON.stringify(json, null, 2)}\n` };
  });
}

/** The stacks of `topologies`, kept for the emitter when they are few (the outcome guard's). */
export function synthesizeForGuard(topologies: readonly TopologyModel[]): GeneratedFile[] {
  return topologies.flatMap((topology) => {
    const files = synthesize(topology);
    if (topologies.length <= KEEP_AT_MOST && Object.isFrozen(topology)) kept.set(topology, files);
    return files;
  });
}

function take(topology: TopologyModel): readonly GeneratedFile[] {
  const files = kept.get(topology);
  if (files === undefined) return synthesize(topology);
  kept.delete(topology);
  return files;
}

/** The kept stacks of deleted topology files (`terraform/<stack>/cdk.tf.json`, empty): they belong to no topology. */
export const emitKeptStacks: Emitter = (model: ProjectModel) =>
  (model.keptStacks ?? []).length === 0 ? [] : releasingCdktfTokens(() => stackFiles(keptStacks(detachedApp(), model)));

/** `terraform/<topology>/cdk.tf.json`: plain Terraform JSON that Terraform and OpenTofu apply, and the kept stacks. */
export const emitTerraform: Emitter = (model) => [...model.topologies.flatMap((topology) => take(topology)), ...emitKeptStacks(model)];
