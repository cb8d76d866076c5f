import { emitTerraform } from '../../src/emitters/terraform';
import type { ProjectModel } from '../../src/model/types';
import { guardChanges, judgeOutcome, planChanges, withAppliedStacks, withDeletionsRecorded, withRemovedStacks } from '../../src/plan';
import { compile } from './specs';

/*
 * A small model of Terraform for the spec-edit guards: each step runs what `krt synth` runs
 * (compile, withRemovedStacks over the committed model, the guard, the snapshot's record)
 * and applies the stacks it names (a resource the configuration leaves out is destroyed; a
 * topic created over one that exists fails the apply). `world.losses` lists what an apply lost.
 */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const consumer = (name: string, topic: string, extra: Json = {}) => ({ name, topic: { name: topic, partitions: 6 }, principal: `User:${name}`, ladder: ['1m', '10m'], ...extra });
export const topology = (name: string, consumers: Json[], extra: Json = {}) => ({
  name,
  owner: { team: 'platform', onCall: '#oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  cluster: { replicationFactor: 1, minInsyncReplicas: 1 },
  consumers,
  ...extra,
});

/** Each stack's topics, by address, as Terraform reads its configuration. */
function configs(model: ProjectModel): Map<string, Map<string, string>> {
  const stacks = new Map<string, Map<string, string>>();
  for (const file of emitTerraform(model)) {
    const json = JSON.parse(file.content) as Json;
    const forgets = new Set(((json.removed ?? []) as Json[]).filter((r) => r.lifecycle?.destroy === false).map((r) => r.from as string));
    const imports = new Map(((json.import ?? []) as Json[]).map((i) => [i.to as string, i.id as string]));
    stacks.set(file.path.split('/')[1]!, new Map([
      ...Object.entries((json.resource?.kafka_topic ?? {}) as Record<string, Json>).map(([id, r]) => [`kafka_topic.${id}`, r.name as string] as [string, string]),
      ...[...forgets].map((a) => [`forget:${a}`, ''] as [string, string]),
      ...[...imports].map(([to, id]) => [`import:${to}`, id] as [string, string]),
    ]));
  }
  return stacks;
}

/** The cluster and every stack's Terraform state. */
export class World {
  readonly topics = new Set<string>();
  readonly states = new Map<string, Map<string, string>>();
  readonly declaredGone = new Set<string>();
  readonly losses: string[] = [];

  apply(stack: string, config: Map<string, string>): void {
    const state = this.states.get(stack) ?? new Map<string, string>();
    this.states.set(stack, state);
    for (const [key, id] of config) {
      if (!key.startsWith('import:') || state.has(key.slice(7))) continue;
      // Terraform cannot import what does not exist: the apply stops there.
      if (!this.topics.has(id)) {
        this.losses.push(`apply of '${stack}' imports '${id}', which does not exist: the apply fails`);
        return;
      }
      state.set(key.slice(7), id);
    }
    for (const key of config.keys()) if (key.startsWith('forget:')) state.delete(key.slice(7));
    const resources = [...config].filter(([key]) => key.startsWith('kafka_topic.'));
    for (const [address, topic] of [...state]) {
      if (resources.some(([a, t]) => a === address && t === topic)) continue;
      if (!this.declaredGone.has(topic)) this.losses.push(`apply of '${stack}' destroys '${topic}' with its records`);
      this.topics.delete(topic);
      state.delete(address);
    }
    for (const [address, topic] of resources) {
      if (state.has(address)) continue;
      if (this.topics.has(topic)) {
        this.losses.push(`apply of '${stack}' creates '${topic}', which exists: the apply fails`);
        continue;
      }
      this.topics.add(topic);
      state.set(address, topic);
    }
  }
}

/**
 * Runs synth on each spec in turn; applies the stacks each step names (all of them first).
 * `applied` is what the operator tells krt at that step (`krt synth --applied <stack>`):
 * kept stacks applied earlier.
 */
export function run(steps: { specs: Json[]; apply: string[] | 'all'; applied?: string[] }[]) {
  const world = new World();
  let model: ProjectModel | undefined;
  const refused: string[] = [];
  /** What `krt plan` says at each step after the first. */
  const plans: string[][] = [];
  for (const [i, { specs, apply, applied }] of steps.entries()) {
    const compiled = compile(...specs).model;
    if (!compiled) throw new Error(`step ${i}: the spec does not compile`);
    model = withAppliedStacks(model, applied ?? []);
    const next = withRemovedStacks(model, compiled);
    // What krt plan says of this step, refused or not.
    if (model) plans.push(planChanges(model, next).groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`)));
    let recorded = next;
    if (model) {
      const outcome = judgeOutcome(model, next, undefined, new Set(applied ?? []));
      const problems = guardChanges(model, next, outcome);
      if (problems.length > 0) {
        refused.push(...problems.map((p) => `step ${i}: ${p.message}`));
        break;
      }
      // What krt synth writes in the snapshot: what each stack deleted, until it is said applied.
      recorded = withDeletionsRecorded(next, outcome.held);
      const named = new Set(next.topologies.flatMap((t) => t.consumers.flatMap((c) => [c.mainTopic.name, ...c.tiers.map((x) => x.name), c.dlq.name, c.dlqAudit.name])));
      // A topic the spec names again is live again: it may no longer go.
      for (const topic of named) world.declaredGone.delete(topic);
      for (const c of model.topologies.flatMap((t) => t.consumers)) {
        if (c.decommissioned) for (const x of [...c.tiers, c.dlq, c.dlqAudit]) if (!named.has(x.name)) world.declaredGone.add(x.name);
        // A retired (draining) tier dropped from the spec is declared gone too.
        for (const x of c.drainingTiers) if (!named.has(x.name)) world.declaredGone.add(x.name);
      }
    }
    const stacks = configs(next);
    for (const [stack, config] of stacks) if (apply === 'all' || apply.includes(stack)) world.apply(stack, config);
    model = recorded;
  }
  return { world, refused, plans };
}
