import { emitTerraform } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { guardChanges, judgeOutcome, planChanges, withAppliedStacks, withDeletionsRecorded, withRemovedStacks } from '../src/plan';
import { compile } from './helpers/specs';

/*
 * Attack 36 (class: a stack's configuration loses what kept its state from deleting records,
 * and krt neither refuses nor records it, although it now has the operator's word for
 * "applied" (`--applied`)).
 *
 * Scenario (docs/changing-topologies.md, "Move a consumer" and "Manage a main topic here, or
 * hand it back"):
 *  A. Consumer q moves from a to b (previousTopology: 'a'): b imports q's topics, a forgets them
 *     (removed blocks). b is applied (cdktf deploy b), a is not yet. The declaration is then
 *     dropped (a new commit, or the next engineer cleaning up).
 *  B. Consumer x hands its main topic back (managed: false, previouslyManaged: true): stack a
 *     forgets it. The declaration is dropped before a is applied.
 *
 * Seen: both drops are accepted by krt synth; krt plan says only `needs-migration` ("fine once it
 * was applied with them ... if not, put the declaration back") and exits 0, and the snapshot
 * records nothing for stack a. a's state still holds the topics at their addresses and its
 * configuration neither declares nor forgets them, so the next apply of a destroys them: in A,
 * q's DLQ, audit log and tiers that b now holds (every record in them); in B, the main topic
 * itself with the producers' records. Nothing was declared gone.
 *
 * At fault: src/plan/outcome.ts droppedMoves() only tells the drop; heldAfter() records what a
 * stack's state may hold from its resources alone, never from the removed blocks a change takes
 * away. Today (held-by-state.ts) krt does keep "what a synth took out of its configuration while
 * its unapplied Terraform state may still hold it" for resources, and attack 35 made dropping
 * previousName refused until --applied <old>; dropping previousTopology or previouslyManaged is
 * the same loss through a removed block instead of a resource, and is let through.
 *
 * The docs state it as a rule for the user ("remove a declaration only after every stack it
 * names was applied with it"), and the plan's needs-migration line repeats it; but that is the
 * same promise the user made for previousName, which krt now enforces, and a consumer removal,
 * which krt now records. An engineer who deploys with `cdktf deploy b` (the stack the PR was
 * about) and cleans up next day loses the records with exit 0 everywhere.
 *
 * Fixed (session 44): outcome.ts droppedMoves() refuses a removed block that goes while what
 * it forgot is not declared again, unless the stack is said applied (judgeOutcome's `applied`).
 *
 * Suggested fix: treat a removed block that disappears like a resource that disappears: refuse
 * the drop while the stack may not have been applied with it, until `--applied <stack>` (as for
 * previousName), or record the forgotten addresses in the stack's mayHold so that judgeOutcome
 * sees them (and the plan marks the drop destructive / exit 3 until said applied).
 */

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
      }
    }
    const stacks = configs(next);
    for (const [stack, config] of stacks) if (apply === 'all' || apply.includes(stack)) world.apply(stack, config);
    model = recorded;
  }
  return { world, refused, plans };
}


describe('a declaration dropped before the stack that forgets was applied', () => {
  const p = consumer('p', 'p.events');
  const q = consumer('q', 'q.events');
  const r = consumer('r', 'r.events');

  it('previousTopology dropped while stack a was not applied with its removed blocks: refused until --applied a, or nothing lost', () => {
    const { world, refused, plans } = run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: ['b'] },
      { specs: [topology('a', [p]), topology('b', [r, q])], apply: 'all' },
    ]);
    // What krt plan says of the drop (before the fix: needs-migration only, so it exited 0).
    expect(plans[1]!).toContainEqual(expect.stringMatching(/^destructive: stack 'a' no longer forgets 'q.events.dlq', .*krt synth refuses this until told `--applied a`/));
    expect({ refused, losses: world.losses }).toEqual({ refused: [expect.stringContaining('then drop the declaration with krt synth --applied a')], losses: [] });
  });

  it('previouslyManaged dropped while stack a was not applied with its removed block: refused until --applied a, or nothing lost', () => {
    const managed = (extra: Json = {}) => ({ ...q, topic: { name: 'q.events', partitions: 6, managed: true, ...extra } });
    const { world, refused, plans } = run([
      { specs: [topology('a', [p, managed()]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p, { ...q, topic: { name: 'q.events', partitions: 6, managed: false, previouslyManaged: true } }]), topology('b', [r])], apply: [] },
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
    ]);
    // What krt plan says of the drop (before the fix: needs-migration at worst, so it exited 0).
    expect(plans[1]!).toContainEqual(expect.stringMatching(/^destructive: stack 'a' no longer forgets 'q.events'/));
    expect({ refused, losses: world.losses }).toEqual({ refused: [expect.stringContaining('then drop the declaration with krt synth --applied a')], losses: [] });
  });
});
