import { existsSync, readFileSync } from 'node:fs';
import type { ScratchProject } from './project';

/*
 * What a stack cdktf built (cdktf.out/stacks/<stack>/cdk.tf.json) does when
 * `cdktf deploy` applies it over the Terraform state its previous deploy left, with the same
 * small model of Terraform as test/helpers/terraform-world.ts: a resource the state holds and
 * the configuration neither declares (same address, same topic) nor forgets (removed,
 * destroy = false) is destroyed; an import of a topic that does not exist, or a create of one
 * that exists, fails the apply.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface BuiltStack {
  /** Topic name by address (kafka_topic.<id>). */
  readonly topics: ReadonlyMap<string, string>;
  /** Addresses the stack forgets (removed, destroy = false). */
  readonly forgets: ReadonlySet<string>;
  /** Topic names imported, by address. */
  readonly imports: ReadonlyMap<string, string>;
  /** Where `cdktf deploy` keeps this stack's state (the local backend's path), if any. */
  readonly statePath: string | undefined;
}

/** The stack `krt cdktf` built last into the project's cdktf.out (or `file`), undefined when there is none. */
export function builtStack(project: ScratchProject, stack: string, file = `cdktf.out/stacks/${stack}/cdk.tf.json`): BuiltStack | undefined {
  if (!existsSync(project.path(file))) return undefined;
  const json = JSON.parse(readFileSync(project.path(file), 'utf8')) as Json;
  const topics = new Map(Object.entries((json.resource?.kafka_topic ?? {}) as Record<string, Json>).map(([id, r]) => [`kafka_topic.${id}`, r.name as string]));
  const forgets = new Set(((json.removed ?? []) as Json[]).filter((r) => r.lifecycle?.destroy === false).map((r) => r.from as string));
  const imports = new Map(((json.import ?? []) as Json[]).map((i) => [i.to as string, i.id as string]));
  return { topics, forgets, imports, statePath: json.terraform?.backend?.local?.path as string | undefined };
}

/**
 * What applying `next` over the state `previous` left (the stack as cdktf deployed it last)
 * does, with `existing` the topics the cluster holds: each line a topic destroyed, an import
 * that fails or a create that fails.
 */
export function applyOver(previous: BuiltStack | undefined, next: BuiltStack, existing: ReadonlySet<string>): string[] {
  const state = new Map(previous?.topics ?? []);
  const effects: string[] = [];
  for (const [address, topic] of next.imports) {
    if (state.has(address)) continue;
    if (!existing.has(topic)) effects.push(`imports '${topic}', which does not exist: the apply fails`);
    else state.set(address, topic);
  }
  for (const address of next.forgets) state.delete(address);
  for (const [address, topic] of state) if (next.topics.get(address) !== topic) effects.push(`destroys '${topic}' with its records`);
  for (const [address, topic] of next.topics) {
    if (!state.has(address) && existing.has(topic)) effects.push(`creates '${topic}', which exists: the apply fails`);
  }
  return effects;
}

/** Every topic the stacks of a build hold (what a cdktf deploy of all of them left in the cluster). */
export function topicsOf(...stacks: (BuiltStack | undefined)[]): Set<string> {
  return new Set(stacks.flatMap((s) => [...(s?.topics.values() ?? [])]));
}
