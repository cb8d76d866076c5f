import type { ProjectModel, TopologyModel } from '../model/types';

/** A `kafka_topic` as Terraform would apply it, variables at their defaults. */
export interface TopicResource {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly config: Readonly<Record<string, string>>;
}

/** What one stack's Terraform JSON says about topics: the resources, and what it imports and forgets. */
export interface StackResources {
  readonly stack: string;
  /** By address. */
  readonly topics: ReadonlyMap<string, TopicResource>;
  /** Addresses of `removed` blocks with `destroy = false`. */
  readonly forgotten: ReadonlySet<string>;
  /** Import id (the topic name) by address. */
  readonly imports: ReadonlyMap<string, string>;
  /** Addresses of its `kafka_acl` resources. */
  readonly acls: ReadonlySet<string>;
}

export interface StackJson {
  variable?: Record<string, { default?: unknown }>;
  resource?: { kafka_topic?: Record<string, { name: string; partitions: number; replication_factor: unknown; config?: Record<string, unknown> }>; kafka_acl?: Record<string, unknown> };
  import?: { to: string; id: string }[];
  removed?: { from: string; lifecycle?: { destroy?: boolean } }[];
}

/** Reads a stack's Terraform JSON, resolving `${var.x}` to the variable's default. */
export function readStack(stack: string, json: StackJson): StackResources {
  const resolve = (value: unknown): string => {
    const name = typeof value === 'string' ? /^\$\{var\.([\w-]+)\}$/.exec(value)?.[1] : undefined;
    return String(name === undefined ? value : json.variable?.[name]?.default);
  };
  const topics = new Map<string, TopicResource>();
  for (const [id, topic] of Object.entries(json.resource?.kafka_topic ?? {})) {
    const address = `kafka_topic.${id}`;
    const config = Object.fromEntries(Object.entries(topic.config ?? {}).map(([key, value]) => [key, resolve(value)]));
    topics.set(address, { stack, address, name: topic.name, partitions: topic.partitions, replicationFactor: Number(resolve(topic.replication_factor)), config });
  }
  return {
    stack,
    topics,
    forgotten: new Set((json.removed ?? []).filter((r) => r.lifecycle?.destroy === false).map((r) => r.from)),
    imports: new Map((json.import ?? []).map((i) => [i.to, i.id])),
    acls: new Set(Object.keys(json.resource?.kafka_acl ?? {}).map((id) => `kafka_acl.${id}`)),
  };
}

/** The Terraform emitter loads cdktf: required only when a guard has stacks to compare. */
const terraform = (): typeof import('../emitters/terraform') => require('../emitters/terraform') as typeof import('../emitters/terraform');

/** Every stack these topologies generate, synthesized by the Terraform emitter itself, by stack name. */
export function synthesizeStacks(topologies: readonly TopologyModel[]): Map<string, StackResources> {
  const stacks = new Map<string, StackResources>();
  if (topologies.length === 0) return stacks;
  for (const file of terraform().synthesizeForGuard(topologies)) {
    const stack = file.path.split('/')[1]!;
    stacks.set(stack, readStack(stack, JSON.parse(file.content) as StackJson));
  }
  return stacks;
}

/**
 * The topologies whose stacks can differ: those whose model differs, or that only one
 * side has. The emitter is pure, so the others give the same Terraform on both sides.
 */
export function changedTopologies(before: ProjectModel, after: ProjectModel): Set<string> {
  const old = new Map(before.topologies.map((t) => [t.name, t]));
  const current = new Map(after.topologies.map((t) => [t.name, t]));
  return new Set([...old.keys(), ...current.keys()].filter((name) => !sameJson(old.get(name), current.get(name))));
}

/** Whether two values have the same JSON (undefined fields left out), without building it: most topologies are unchanged. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const keys = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined);
  const [ka, kb] = [keys(a), keys(b)];
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
