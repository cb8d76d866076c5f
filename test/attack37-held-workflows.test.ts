import { emitTerraform } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { guardChanges, judgeOutcome, planChanges, withAppliedStacks, withDeletionsRecorded, withRemovedStacks } from '../src/plan';
import { compile } from './helpers/specs';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const consumer = (name: string, topic: string, extra: Json = {}) => ({ name, topic: { name: topic, partitions: 6 }, principal: `User:${name}`, ladder: ['1m', '10m'], ...extra });
const topology = (name: string, consumers: Json[], extra: Json = {}) => ({
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
class World {
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
function run(steps: { specs: Json[]; apply: string[] | 'all'; applied?: string[] }[]) {
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
        for (const x of c.drainingTiers) if (!named.has(x.name)) world.declaredGone.add(x.name);
      }
    }
    const stacks = configs(next);
    for (const [stack, config] of stacks) if (apply === 'all' || apply.includes(stack)) world.apply(stack, config);
    model = recorded;
  }
  return { world, refused, plans };
}


const p = consumer('p', 'p.events');
const q = consumer('q', 'q.events');
const r = consumer('r', 'r.events');
const show = (x: ReturnType<typeof run>) => ({ refused: x.refused, losses: x.world.losses });

/*
 * Attack 37: documented workflows in the small Terraform world (the harness of
 * attack36-dropped-declaration-unapplied.test.ts, with drained tiers counted as declared gone)
 * that held: each is accepted when the operator says --applied only for stacks applied, and
 * nothing is lost. Hand-overs of managed main topics back and forth between topologies, a drained
 * tier dropped before a rename, a rename and back, chained moves, moves crossing in one commit, a
 * moved consumer removed at its new home, a topology deleted in the step that drops a move, a
 * consumer removed and its file deleted unapplied, then brought back elsewhere.
 */
describe('attack 37: workflows that hold', () => {
  it('S4 management passes a -> b and back', () => {
    const x = (t: Json) => ({ ...q, topic: { name: 'q.events', partitions: 6, ...t } });
    const y = (t: Json) => ({ ...r, retryTopicBase: 'q.events.r', topic: { name: 'q.events', partitions: 6, ...t } });
    expect(show(run([
      { specs: [topology('a', [p, x({ managed: true })]), topology('b', [y({})])], apply: 'all' },
      { specs: [topology('a', [p, x({ managed: false, previouslyManaged: true })]), topology('b', [y({ managed: true, previouslyManaged: false })])], apply: 'all' },
      { specs: [topology('a', [p, x({})]), topology('b', [y({ managed: true })])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, x({ managed: true, previouslyManaged: false })]), topology('b', [y({ managed: false, previouslyManaged: true })])], apply: 'all' },
      { specs: [topology('a', [p, x({ managed: true })]), topology('b', [y({})])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S6 drained tier dropped, rename, drop previousName', () => {
    const pr = consumer('p', 'p.events', { retired: ['10m'], ladder: ['1m'] });
    const p1 = consumer('p', 'p.events', { ladder: ['1m'] });
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a', [pr, q])], apply: 'all' },
      { specs: [topology('a', [p1, q])], apply: [] },
      { specs: [topology('a2', [p1, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a2', [p1, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S11 chain move a->b->c', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r]), topology('c', [consumer('s', 's.events')])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })]), topology('c', [consumer('s', 's.events')])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r]), topology('c', [consumer('s', 's.events'), consumer('q', 'q.events', { previousTopology: 'b' })])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p]), topology('b', [r]), topology('c', [consumer('s', 's.events'), q])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S12 rename a->a2 and back', () => {
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a2', [p, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a2', [p, q])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, q], { previousName: 'a2' })], apply: 'all' },
      { specs: [topology('a', [p, q])], apply: 'all', applied: ['a2'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S13 rename back before dropping previousName', () => {
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a2', [p, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a', [p, q], { previousName: 'a2' })], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, q])], apply: 'all', applied: ['a2'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S14 move q a->b and drop previousTopology, applying with --applied a in the same step as moving r b->a', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p, consumer('r', 'r.events', { previousTopology: 'b' })]), topology('b', [q])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, r]), topology('b', [q])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S15 move q and its return in one go: q a->b, then q b->a', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p, consumer('q', 'q.events', { previousTopology: 'b' })]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S16 remove q from a after it moved in (previousTopology kept) ', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a', decommissioned: true })])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S17 move q a->b, apply, then delete topology a (decommissioned p), drop previousTopology with applied a in the same step', () => {
    const pg = consumer('p', 'p.events', { decommissioned: true });
    expect(show(run([
      { specs: [topology('a', [pg, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [pg]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('b', [r, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S18 consumer removed and file deleted the same step: then restored', () => {
    const pg = consumer('p', 'p.events', { decommissioned: true });
    const qg = consumer('q', 'q.events', { decommissioned: true });
    expect(show(run([
      { specs: [topology('a', [pg, qg]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [pg]), topology('b', [r])], apply: [] },
      { specs: [topology('b', [r])], apply: 'all' },
      { specs: [topology('b', [r, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
});
