import { existsSync, rmSync } from 'node:fs';
import { emitTerraform } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { guardChanges, planChanges, withRemovedStacks, worstRisk } from '../src/plan';
import { ScratchProject } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

/*
 * Adversarial review of the fix for issue 27 (the guard on the Terraform outcome).
 * Each `it.failing` is a sequence of ordinary spec edits that `krt synth` accepts and
 * `krt plan` does not call destructive, after which the generated Terraform, applied,
 * loses records, fails, or orphans state. They pass while the defect is there; once it
 * is fixed, turn `it.failing` into `it`.
 */

function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}

/** What `krt synth` and `krt plan` say about one step: refused, or the worst risk of the plan. */
function judged(before: ProjectModel, after: ProjectModel): { refused: boolean; worst: string | undefined; lines: string[] } {
  const plan = planChanges(before, after);
  return {
    refused: guardChanges(before, after).length > 0,
    worst: worstRisk(plan),
    lines: plan.groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`)),
  };
}

/** Whether some step of a sequence of syntheses is refused, or at least called destructive. */
function someStepStops(...models: ProjectModel[]): boolean {
  return models.slice(1).some((after, i) => {
    const step = judged(models[i]!, after);
    return step.refused || step.worst === 'destructive';
  });
}

interface StackJson {
  resource?: {
    kafka_topic?: Record<string, { name: string; partitions: number }>;
    kafka_acl?: Record<string, { acl_principal: string; acl_operation: string; resource_type: string; resource_name: string }>;
  };
  import?: { to: string; id: string }[];
  removed?: { from: string; lifecycle: { destroy: boolean } }[];
}

function stacks(model: ProjectModel): Record<string, StackJson> {
  return Object.fromEntries(emitTerraform(model).map((f) => [f.path.split('/')[1], JSON.parse(f.content) as StackJson]));
}

const orders = (...consumers: unknown[]) => aTopology({ consumers });
const payments = (...consumers: unknown[]) => aTopology({ name: 'payments', consumers });

describe('finding A: a take-over (managed: false -> true, previouslyManaged: false) is judged against the spec, not against the topic it imports', () => {
  // Tiers and DLQ pinned at 12, as the refusal of a tier shrink tells a user to do.
  const pinned = (partitions: number, topic: object = {}) =>
    aConsumer({ topic: { name: 'orders.confirmed', partitions, ...topic }, ladder: ['1m', '10m', '1h'].map((delay) => ({ delay, partitions: 12 })), dlq: { partitions: 12 } });

  it('refuses (or calls destructive) a take-over that imports a 12-partition main topic into a resource of 6 partitions, which the provider replaces', () => {
    // 1. The producers' topic has 12 partitions. The spec lowers topic.partitions to 6: "safe", nothing changes in Terraform.
    const real = modelOf(orders(pinned(12)));
    const lowered = modelOf(orders(pinned(6)));
    expect(judged(real, lowered)).toMatchObject({ refused: false, worst: 'safe' });
    // 2. The team takes the topic over: the stack imports 'orders.confirmed' (12 partitions in Kafka) into partitions = 6.
    const takenOver = modelOf(orders(pinned(6, { managed: true, previouslyManaged: false })));
    const stack = stacks(takenOver).orders!;
    expect(stack.import).toEqual([{ to: 'kafka_topic.orders_confirmed', id: 'orders.confirmed' }]);
    expect(stack.resource!.kafka_topic!.orders_confirmed!.partitions).toBe(6);
    // Terraform imports it, reads 12 partitions, and the provider's CustomizeDiff forces a replacement
    // (diff.ForceNew("partitions") when the count goes down): the main topic is deleted with every record.
    // Today: step 2 says only "imports the existing topic 'orders.confirmed' with its records" (needs-migration).
    expect(someStepStops(real, lowered, takenOver)).toBe(true);
  });

  it('calls destructive a take-over that sets cleanup.policy compact on a topic the producers kept with delete, as it does for a managed topic', () => {
    const before = modelOf(orders(aConsumer()));
    const after = modelOf(orders(aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, managed: true, previouslyManaged: false, config: { 'cleanup.policy': 'compact' } } })));
    // The same config on a topic managed all along is 'destructive'; imported, the guard compares the new config with itself.
    expect(judged(before, after).worst).toBe('destructive');
  });
});

describe('finding B: config changes that drop records, outside the three the plan knows', () => {
  const managed = (config: Record<string, string | number>) => orders(aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, managed: true, config } }));

  it('says something when retention.ms is removed from a managed main topic kept forever: the broker default (7 days) applies and older records are deleted', () => {
    const step = judged(modelOf(managed({ 'retention.ms': -1 })), modelOf(managed({})));
    // Today: no line at all ("no changes"), although the provider's AlterConfigs sets the topic's configs to exactly the map.
    expect(step.lines).toEqual(expect.arrayContaining([expect.stringMatching(/^(needs-migration|destructive): .*retention/)]));
  });

  it('does not call cleanup.policy compact -> delete safe: every record older than retention.ms (7 days by default) is deleted at once', () => {
    const step = judged(modelOf(managed({ 'cleanup.policy': 'compact' })), modelOf(managed({ 'cleanup.policy': 'delete' })));
    expect(step.worst).not.toBe('safe');
  });

  it('does not call a smaller retention.bytes safe: the oldest segments are deleted at once', () => {
    const step = judged(modelOf(managed({ 'retention.bytes': -1 })), modelOf(managed({ 'retention.bytes': 1048576 })));
    expect(step.worst).not.toBe('safe');
  });
});

describe('finding C: import and removed blocks that disappear from a stack that keeps others are not told', () => {
  const billing = aConsumer();
  const shipping = aConsumer({ name: 'shipping', topic: { name: 'orders.shipped', partitions: 12 }, principal: 'User:shipping' });
  const kept = aConsumer({ name: 'kept', topic: { name: 'orders.kept', partitions: 12 }, principal: 'User:kept' });
  const refunds = aConsumer({ name: 'refunds', topic: { name: 'refunds.requested', partitions: 6 }, principal: 'User:refunds' });
  const before = modelOf(orders(billing, shipping, kept), payments(refunds));
  const moved = modelOf(orders(kept), payments(refunds, { ...billing, previousTopology: 'orders' }, { ...shipping, previousTopology: 'orders' }));

  it('reminds the user when one of two moves loses its declaration: stack orders no longer forgets billing\'s DLQ and tiers', () => {
    expect(judged(before, moved)).toMatchObject({ refused: false, worst: 'needs-migration' });
    // previousTopology removed from one consumer only, e.g. once 'payments' was applied but not yet 'orders'.
    const oneDropped = modelOf(orders(kept), payments(refunds, billing, { ...shipping, previousTopology: 'orders' }));
    expect(stacks(oneDropped).orders!.removed!.map((r) => r.from)).not.toContain('kafka_topic.orders_confirmed_dlq');
    const step = judged(moved, oneDropped);
    // Once no line at all. If 'orders' was not applied with its removed blocks, its next apply deletes
    // 'orders.confirmed.dlq' and the tiers (its state still holds them) while 'payments' holds them too:
    // refused until the operator says 'orders' was applied (attack 36).
    expect(step.refused).toBe(true);
    expect(step.lines).toEqual(expect.arrayContaining([expect.stringMatching(/^destructive: stack 'orders' no longer forgets 'orders\.confirmed\.dlq'.*--applied orders/)]));
  });

  it('reminds the user when a consumer moves on again before the first move was applied (orders -> payments -> analytics)', () => {
    const again = modelOf(orders(kept), payments(refunds, { ...shipping, previousTopology: 'orders' }), aTopology({ name: 'analytics', consumers: [{ ...billing, previousTopology: 'payments' }] }));
    const step = judged(moved, again);
    // Stack 'orders' loses its removed blocks for billing's topics: refused until said applied (attack 36).
    expect(step.refused).toBe(true);
    expect(step.lines).toEqual(expect.arrayContaining([expect.stringMatching(/stack 'orders' no longer forgets 'orders\.confirmed\.dlq'/)]));
  });
});

describe('finding D: a topology file deleted after its consumers were decommissioned', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('still generates a configuration for its stack, so the deletion the plan announces can be applied', async () => {
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    const plan = await project.krt('plan');
    expect(plan.stdout).toMatch(/destructive +consumer removed: deletes 'orders\.confirmed\.analytics-orders\.retry\.5s'.* and their ACLs/);
    expect(plan.stdout).toMatch(/safe +topology removed: its stack 'analytics' is still generated, with no resources/);
    expect((await project.krt('synth')).code).toBe(0);
    // Before, the writer removed generated/terraform/analytics/cdk.tf.json: no `cdktf deploy` nor `terraform apply`
    // could delete the topics or revoke the ACLs (User:analytics-replay kept Write on 'orders.confirmed'), and the
    // folder's terraform.tfstate was orphaned.
    expect(existsSync(project.path('generated/terraform/analytics/cdk.tf.json'))).toBe(true);
    const stack = JSON.parse(project.read('generated/terraform/analytics/cdk.tf.json')) as StackJson;
    // Nothing declared, nothing forgotten: applying it deletes every topic and ACL its state holds.
    expect({ resource: stack.resource, removed: stack.removed, import: stack.import }).toEqual({ resource: undefined, removed: undefined, import: undefined });
    // krt cannot tell offline when it was applied: later synths keep it, and a check agrees.
    expect((await project.krt('synth')).stdout).not.toContain('removed generated/terraform/analytics');
    expect((await project.krt('synth', '--check')).code).toBe(0);
    expect((await project.krt('plan')).stdout).toContain('no changes against');
  });
});

describe('finding D, the class: a stack that held resources is never dropped silently', () => {
  const billing = aConsumer();
  const refunds = aConsumer({ name: 'refunds', topic: { name: 'refunds.requested', partitions: 6 }, principal: 'User:refunds' });
  const decommissioned = modelOf(orders(billing), payments({ ...refunds, decommissioned: true }));
  const paymentsGone = modelOf(orders(billing));

  it('refuses a model that stops generating a stack whose state holds topics and ACLs, however it came about', () => {
    expect(guardChanges(decommissioned, paymentsGone).map((d) => d.message)).toEqual([
      expect.stringMatching(/^stack 'payments' would no longer be generated while its Terraform state holds 5 topics and [1-9]\d* ACLs, so nothing could apply their deletion/),
    ]);
  });

  it('accepts the same deletion once the stack is kept, empty, and tells what applying it deletes', () => {
    const kept = withRemovedStacks(decommissioned, paymentsGone);
    expect(guardChanges(decommissioned, kept)).toEqual([]);
    expect(Object.keys(stacks(kept))).toEqual(['orders', 'payments']);
    expect(stacks(kept).payments!.resource).toBeUndefined();
    expect(judged(decommissioned, kept).lines).toEqual(expect.arrayContaining([expect.stringMatching(/^destructive: consumer removed: deletes 'refunds\.requested\.retry\.1m'/)]));
    // The next synth keeps it; a topology of that name takes its stack back.
    expect(removedFrom(withRemovedStacks(kept, paymentsGone))).toEqual(['payments']);
    const back = withRemovedStacks(kept, modelOf(orders(billing), payments(aConsumer({ name: 'payouts', topic: { name: 'payouts', partitions: 3 }, principal: 'User:payouts' }))));
    expect(removedFrom(back)).toEqual([]);
    expect(judged(kept, back).lines).toContain("safe: stack 'payments' is generated by a topology again and no longer kept empty");
  });

  it('still refuses a deleted topology file whose consumers were not decommissioned', () => {
    const before = modelOf(orders(billing), payments(refunds));
    expect(guardChanges(before, withRemovedStacks(before, paymentsGone)).map((d) => d.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("'refunds.requested.dlq'")]),
    );
  });
});

/** The stacks a model keeps empty for deleted topology files. */
function removedFrom(model: ProjectModel): string[] {
  return (model.keptStacks ?? []).map((k) => k.stack);
}

describe('finding G: `krt synth <file>` (a subset of the topology files) takes every other topology for deleted', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('keeps the guard on a topology that a synth of another file left out of the snapshot', async () => {
    // 1. analytics-orders is decommissioned (step 1 of removing a consumer), synthesized and applied.
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    // 2. Someone synthesizes only the file they edited. analytics' stack and its part of the snapshot
    //    must stay as they were (they did not: the partial run took analytics for removed).
    const one = await project.krt('synth', 'topologies/orders.ts');
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('removed generated/terraform/analytics/cdk.tf.json');
    expect(project.read('generated/.krt-model.json')).toContain('"analytics"');
    // 3. A tier of the decommissioned consumer is dropped without retiring it: refused, as against the snapshot of step 1.
    project.edit('topologies/analytics.ts', "ladder: ['5s', '1m'],", "ladder: ['5s'],");
    const plan = await project.krt('plan');
    const synth = await project.krt('synth');
    expect({ plan: plan.code, synth: synth.code }).not.toEqual({ plan: 0, synth: 0 });
  });
});

describe('finding E: an ACL that two stacks declare is deleted by one of them', () => {
  /** Kafka's ACLs: one per (principal, operation, resource), however many stacks declare it. */
  const key = (acl: { acl_principal: string; acl_operation: string; resource_type: string; resource_name: string }) =>
    `${acl.acl_principal} ${acl.acl_operation} ${acl.resource_type} ${acl.resource_name}`;
  const declared = (stack: StackJson | undefined) => new Map(Object.entries(stack?.resource?.kafka_acl ?? {}).map(([id, acl]) => [`kafka_acl.${id}`, key(acl)]));

  it('keeps User:billing\'s Read on orders.confirmed for the consumer that still needs it when another consumer of that principal leaves payments', () => {
    const billing = aConsumer();
    const audit = aConsumer({ name: 'billing-audit', retryTopicBase: 'orders.confirmed.billing-audit' });
    const retiring = modelOf(orders(billing), payments({ ...audit, decommissioned: true }));
    const gone = modelOf(orders(billing), payments(aConsumer({ name: 'payouts', topic: { name: 'payouts', partitions: 3 }, principal: 'User:payouts' })));
    // Refused, with the way to do it (move the consumer to the stack that keeps the ACL first, then remove it there).
    if (judged(retiring, gone).refused) {
      expect(guardChanges(retiring, gone).map((d) => d.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^stack 'payments' would delete the ACL User:billing Read Topic 'orders\.confirmed' from Kafka, which stack 'orders' still declares/)]));
      return;
    }
    const [was, now] = [stacks(retiring), stacks(gone)];
    // Kafka after both stacks were applied with `retiring`, then 'payments' (the only stack that changed) with `gone`.
    const kafka = new Set([...declared(was.orders).values(), ...declared(was.payments).values()]);
    const forgotten = new Set((now.payments!.removed ?? []).map((r) => r.from));
    for (const [address, acl] of declared(was.payments)) if (!declared(now.payments).has(address) && !forgotten.has(address)) kafka.delete(acl);
    // 'orders' is unchanged and declares the ACL, but Kafka no longer has it: billing-order-confirmed cannot read its topic.
    const missing = [...declared(now.orders).values()].filter((acl) => !kafka.has(acl));
    expect(missing).toEqual([]);
  });
});

describe('finding F: the guard keys topics by name only, so topics that change consumer with their records are not seen', () => {
  it('refuses (or calls destructive) two consumers swapping retryTopicBase: each inherits the other\'s DLQ and waiting retries', () => {
    const a = aConsumer({ name: 'a', topic: { name: 'orders.a', partitions: 12 }, principal: 'User:a' });
    const b = aConsumer({ name: 'b', topic: { name: 'orders.b', partitions: 12 }, principal: 'User:b' });
    const before = modelOf(orders(a, b));
    const after = modelOf(orders({ ...a, retryTopicBase: 'orders.b' }, { ...b, retryTopicBase: 'orders.a' }));
    // Terraform changes no topic (same names at the same addresses), so the outcome guard sees nothing; the plan
    // said "safe: tier 1 retimed from 1m to 1m: creates 'orders.b.retry.1m'" although it exists and holds b's
    // retries, which a's retry group (no offsets there) now runs through a's handler, and a `krt dlq replay a`
    // sends b's dead letters into a's first tier.
    const step = judged(before, after);
    expect(step.lines).toContain("safe: tier 1 (1m) moves from 'orders.a.retry.1m' to 'orders.b.retry.1m': keeps 'orders.b.retry.1m', which exists already");
    expect(step.refused || step.worst === 'destructive').toBe(true);
  });
});

describe('finding H (minor): a refusal whose fix does not work', () => {
  it('tells a main topic whose management passes to another topology to declare previouslyManaged, not previousTopology on a consumer that did not move', () => {
    const topic = { name: 'orders.confirmed', partitions: 12 };
    const analytics = (extra: object) => aConsumer({ name: 'analytics', principal: 'User:analytics', retryTopicBase: 'orders.confirmed.analytics', topic: { ...topic, ...extra } });
    const before = modelOf(orders(aConsumer({ topic: { ...topic, managed: true } })), payments(analytics({})));
    const after = modelOf(orders(aConsumer({ topic })), payments(analytics({ managed: true })));
    const refused = guardChanges(before, after).map((d) => d.message);
    // Today: "consumer 'billing-order-confirmed' moved from topology 'orders' to 'payments' ... set previousTopology:
    // 'orders' on the consumer", which changes nothing (it is in 'orders'); the fix is previouslyManaged on both sides.
    expect(refused).toEqual([expect.stringContaining('previouslyManaged')]);
    // And the advice works: declared on both sides, 'payments' imports the topic and 'orders' forgets it.
    const declared = modelOf(orders(aConsumer({ topic: { ...topic, previouslyManaged: true } })), payments(analytics({ managed: true, previouslyManaged: false })));
    expect(guardChanges(before, declared)).toEqual([]);
    expect(stacks(declared).payments!.import).toEqual([{ to: 'kafka_topic.orders_confirmed', id: 'orders.confirmed' }]);
    expect(stacks(declared).orders!.removed!.map((r) => r.from)).toContain('kafka_topic.orders_confirmed');
  });
});

describe('what held, pinned where no test noticed a broken guard', () => {
  // With declaredGone() accepting any decommissioned consumer (not only one that left the spec), the property
  // test still passes (its oracle counts such topics as declared gone too), and so does every other unit suite.
  it('refuses a tier dropped without retiring it from a consumer that is decommissioned but still in the spec', () => {
    const before = modelOf(orders(aConsumer({ decommissioned: true })));
    const after = modelOf(orders(aConsumer({ decommissioned: true, ladder: ['1m', '1h'] })));
    expect(guardChanges(before, after).map((d) => d.message)).toEqual([expect.stringMatching(/^tier 10m left the ladder, which would delete 'orders\.confirmed\.retry\.10m'/)]);
  });
});
