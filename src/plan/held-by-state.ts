import { aclRules } from '../model/acls';
import { stackTopics } from '../model/hand-over';
import type { HandOver, HeldResources, ProjectModel, TopologyModel } from '../model/types';
import { aclResourceId } from '../naming';
import { KrtError } from '../runtime/krt-error';
import { compareStrings } from '../util/compare';
import type { StackResources } from './stack-resources';

/*
 * What a stack's Terraform state may still hold that its configuration no longer declares.
 * A synth that deletes a topic (a decommissioned consumer removed, a drained tier dropped,
 * a topology file deleted) only writes configuration: the topic lives on until that stack
 * is applied, and krt cannot tell offline when that happens. Declared again in another
 * stack meanwhile, it would be created over the topic that exists (that apply fails) and
 * then deleted under its new consumer by the first stack's apply. So every stack, live or
 * kept, remembers what it deleted (`mayHold`) until the operator says it was applied
 * (`--applied <stack>`) or declares those topics again in the same stack.
 */

/** Every stack whose state may hold what its configuration no longer declares, and what: by stack name. */
export function heldResources(model: ProjectModel): Map<string, HeldResources> {
  const held = new Map<string, HeldResources>();
  for (const topology of model.topologies) {
    if (topology.mayHold) held.set(topology.name, topology.mayHold);
    for (const h of topology.handedOver ?? []) if (h.mayHold && h.stack !== topology.name) held.set(h.stack, h.mayHold);
  }
  for (const k of model.keptStacks ?? []) if (k.mayHold) held.set(k.stack, k.mayHold);
  return held;
}

/** What a stack's Terraform declares, as `mayHold` says it; undefined when nothing. */
export function heldIn(resources: StackResources): HeldResources | undefined {
  const topics = [...resources.topics.values()].map(({ stack: _, ...topic }) => topic);
  // Resource ids, as a hand-over names ACLs; the stack's set holds addresses.
  const acls = [...resources.acls].map((a) => a.replace(/^kafka_acl\./, ''));
  return normalized({ topics, acls });
}

/** Both records together (a topic once, by address); undefined when nothing. */
export function unionOf(a: HeldResources | undefined, b: HeldResources | undefined): HeldResources | undefined {
  if (!a || !b) return a ?? b;
  const topics = new Map([...a.topics, ...b.topics].map((t) => [t.address, t]));
  return normalized({ topics: [...topics.values()], acls: [...new Set([...a.acls, ...b.acls])] });
}

/** Sorted, so the snapshot is deterministic; undefined when it holds nothing. */
function normalized(held: HeldResources): HeldResources | undefined {
  if (held.topics.length + held.acls.length === 0) return undefined;
  return { topics: [...held.topics].sort((x, y) => compareStrings(x.address, y.address)), acls: [...held.acls].sort(compareStrings) };
}

/**
 * The model with what each stack's state may still hold carried over from the committed
 * model, less what the stack declares again (its state and its configuration then agree
 * on it). A stack that is no longer generated takes nothing: a deleted topology's stack is
 * kept with what it held (see `withRemovedStacks`), and a topology generating that stack
 * again takes it over. Deletions made by this change are added by `withDeletionsRecorded`.
 */
export function withHeldCarried(baseline: ProjectModel | undefined, model: ProjectModel): ProjectModel {
  const before = baseline ? heldResources(baseline) : new Map<string, HeldResources>();
  if (before.size === 0) return model;
  let changed = false;
  const topologies = model.topologies.map((topology) => {
    const own = unionOf(topology.mayHold, undeclared(before.get(topology.name), topology));
    const handedOver = topology.handedOver?.map((h) => {
      // A hand-over of the topology's own stack (consumers moved away): its record is the topology's.
      if (h.stack === topology.name) return h;
      const carried = unionOf(h.mayHold, before.get(h.stack));
      return carried === h.mayHold ? h : { ...h, mayHold: carried! };
    });
    const next = withHeld(topology, own, handedOver);
    changed ||= next !== topology;
    return next;
  });
  const keptStacks = model.keptStacks?.map((k) => {
    const carried = unionOf(k.mayHold, before.get(k.stack));
    return carried === k.mayHold ? k : { ...k, mayHold: carried! };
  });
  changed ||= (keptStacks ?? []).some((k, i) => k !== model.keptStacks![i]);
  return changed ? { ...model, topologies, ...(keptStacks ? { keptStacks } : {}) } : model;
}

/**
 * The model as the snapshot records it after this change: each stack the change judged
 * holds what `judgeOutcome` found its configuration no longer declares (`held`, by stack,
 * which starts from what it held before); the others keep what was carried.
 */
export function withDeletionsRecorded(model: ProjectModel, held: ReadonlyMap<string, HeldResources | undefined>): ProjectModel {
  if (held.size === 0) return model;
  const topologies = model.topologies.map((topology) => {
    const own = held.has(topology.name) ? held.get(topology.name) : topology.mayHold;
    const handedOver = topology.handedOver?.map((h) => {
      if (!held.has(h.stack) || h.stack === topology.name) return h;
      const mayHold = held.get(h.stack);
      return mayHold === h.mayHold ? h : { ...h, mayHold };
    });
    return withHeld(topology, own, handedOver);
  });
  const keptStacks = model.keptStacks?.map((k) => {
    if (!held.has(k.stack)) return k;
    const mayHold = held.get(k.stack);
    if (mayHold === k.mayHold) return k;
    // Keys keep their places and one cleared is left out (see withHeld).
    return { ...k, mayHold };
  });
  return { ...model, topologies, ...(keptStacks ? { keptStacks } : {}) };
}

/**
 * `model` with what each of its stacks may still hold taken from `record` (undefined where
 * `record` has nothing for it): a model built earlier, judged with the record as it is now.
 */
export function withHeldOf(record: ProjectModel | undefined, model: ProjectModel): ProjectModel {
  const now = record ? heldResources(record) : new Map<string, HeldResources>();
  const stacks = generatedStacks(model);
  return withDeletionsRecorded(model, new Map([...stacks].map((s) => [s, now.get(s)] as const)));
}

/**
 * The committed model as it is once the operator applied these stacks (`--applied`):
 * their state then holds only what their configuration declares, so nothing they deleted
 * stands in the way, and the next snapshot no longer carries it. A name that is no stack
 * of the committed output is a usage error (a typo would otherwise say nothing).
 */
export function withAppliedStacks(baseline: ProjectModel | undefined, applied: readonly string[]): ProjectModel | undefined {
  if (applied.length === 0) return baseline;
  const stacks = generatedStacks(baseline ?? { topologies: [] });
  const unknown = [...new Set(applied)].filter((s) => !stacks.has(s)).sort(compareStrings);
  if (unknown.length > 0) {
    const held = [...heldResources(baseline ?? { topologies: [] }).keys()].sort(compareStrings);
    const list = held.length > 0 ? `the stacks whose state may still hold what they no longer declare are ${held.map((s) => `'${s}'`).join(', ')}` : 'no stack may still hold anything it no longer declares';
    throw new KrtError(`--applied ${unknown.join(', ')}: not a stack of the committed output (${list}); name only stacks you applied`, { exit: 'usage' });
  }
  const names = new Set(applied);
  const cleared = new Map([...names].map((s) => [s, undefined] as const));
  return withDeletionsRecorded(baseline!, cleared);
}

/** What a stack's record says it may hold, less the topics and ACLs the topology declares in it again. */
function undeclared(held: HeldResources | undefined, topology: TopologyModel): HeldResources | undefined {
  if (!held) return undefined;
  const topics = new Set(topology.consumers.flatMap(stackTopics));
  const acls = held.acls.length > 0 ? new Set(aclRules(topology).map(aclResourceId)) : new Set<string>();
  return normalized({ topics: held.topics.filter((t) => !topics.has(t.name)), acls: held.acls.filter((id) => !acls.has(id)) });
}

/** The stacks a model generates: each topology's own, the former stacks it carries, and the kept stacks. */
export function generatedStacks(model: ProjectModel): Set<string> {
  return new Set([...model.topologies.flatMap((t) => [t.name, ...(t.handedOver ?? []).map((h) => h.stack)]), ...(model.keptStacks ?? []).map((k) => k.stack)]);
}

/**
 * The topology with these records, the same object when nothing changed. Keys keep their
 * places and one cleared is left undefined, which JSON leaves out: the snapshot's text
 * must not depend on the path a model took (\`synth --check\` compares it byte for byte).
 */
function withHeld(topology: TopologyModel, own: HeldResources | undefined, handedOver: readonly HandOver[] | undefined): TopologyModel {
  const sameHandOver = handedOver === topology.handedOver || (handedOver ?? []).every((h, i) => h === topology.handedOver![i]);
  if (own === topology.mayHold && sameHandOver) return topology;
  return { ...topology, ...(sameHandOver ? {} : { handedOver }), mayHold: own };
}
