import { rmSync } from 'node:fs';
import { emitTerraform } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { guardChanges, planChanges, worstRisk } from '../src/plan';
import type { Plan } from '../src/plan';
import { expectGolden } from './helpers/golden';
import { ScratchProject } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

/** The project's model from topology specs; throws on spec errors. */
function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}

const orders = (...consumers: unknown[]) => aTopology({ consumers });
const payments = (...consumers: unknown[]) => aTopology({ name: 'payments', consumers });

function lines(plan: Plan): string[] {
  return plan.groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`));
}

/** What krt synth refuses; `applied`: the stacks the operator says were applied (\`--applied\`). */
function refusals(before: ProjectModel, after: ProjectModel, applied: readonly string[] = []): string[] {
  return guardChanges(before, after, undefined, undefined, new Set(applied)).map((d) => `${d.path}: ${d.message}`);
}

interface StackJson {
  resource?: { kafka_topic?: Record<string, { name: string }> };
  import?: { to: string; id: string }[];
  removed?: { from: string; lifecycle: { destroy: boolean } }[];
}

/** The generated Terraform JSON of every stack, by stack name. */
function stacks(model: ProjectModel): Record<string, StackJson> {
  return Object.fromEntries(emitTerraform(model).map((f) => [f.path.split('/')[1], JSON.parse(f.content) as StackJson]));
}

const shipping = aConsumer({ name: 'shipping', topic: { name: 'orders.shipped', partitions: 12 }, principal: 'User:shipping' });
const managedMain = { name: 'orders.confirmed', partitions: 12, managed: true, config: { 'cleanup.policy': 'delete' } };

describe('finding 1: a managed main topic that leaves the stack', () => {
  const before = modelOf(orders(aConsumer({ topic: managedMain })));

  it('refuses managed: false, which would make the apply delete the main topic', () => {
    const after = modelOf(orders(aConsumer({ topic: { ...managedMain, managed: false } })));
    expect(refusals(before, after)).toEqual([expect.stringMatching(/^consumers\[0\]\.topic\.managed: main topic 'orders\.confirmed' is no longer managed here, so stack 'orders' would delete it with every record; .*set previouslyManaged: true/)]);
    expect(worstRisk(planChanges(before, after))).toBe('destructive');
  });

  it('hands the topic over with previouslyManaged: true: the stack forgets it and the topic keeps its records', () => {
    const after = modelOf(orders(aConsumer({ topic: { ...managedMain, managed: false, previouslyManaged: true } })));
    expect(refusals(before, after)).toEqual([]);
    expect(stacks(after).orders!.removed).toEqual([{ from: 'kafka_topic.orders_confirmed', lifecycle: { destroy: false } }]);
    expect(lines(planChanges(before, after))).toContain(
      "needs-migration: 'orders.confirmed' leaves Terraform with its records: stack 'orders' forgets it (removed, destroy = false) and nothing here manages it any more; apply 'orders' with Terraform or OpenTofu 1.7+, then drop previouslyManaged from the spec, saying so: `krt synth --applied orders`",
    );
  });

  it('refuses renaming a managed main topic while retryTopicBase keeps the DLQ, which would delete the old main topic', () => {
    const kept = modelOf(orders(aConsumer({ topic: managedMain, retryTopicBase: 'orders.confirmed' })));
    const after = modelOf(orders(aConsumer({ topic: { ...managedMain, name: 'orders.confirmed.v2' }, retryTopicBase: 'orders.confirmed' })));
    expect(refusals(kept, after)).toEqual([expect.stringMatching(/^consumers\[0\]\.topic\.name: the managed main topic changes from 'orders\.confirmed' to 'orders\.confirmed\.v2', so stack 'orders' would delete 'orders\.confirmed'/)]);
    expect(worstRisk(planChanges(kept, after))).toBe('destructive');
  });
});

describe('finding 2: a consumer moved to another topology file', () => {
  const before = modelOf(orders(aConsumer(), shipping), payments(aConsumer({ name: 'refunds', topic: { name: 'refunds.requested', partitions: 6 }, principal: 'User:refunds' })));
  const refunds = before.topologies[1]!.consumers[0]!;
  const refundsSpec = aConsumer({ name: 'refunds', topic: { name: 'refunds.requested', partitions: 6 }, principal: 'User:refunds' });

  it('refuses the move when the spec does not declare it, because the old stack would delete its DLQ, audit log and tiers', () => {
    const after = modelOf(orders(shipping), payments(refundsSpec, aConsumer()));
    expect(refusals(before, after)).toEqual([
      expect.stringMatching(/^consumers\[1\]: consumer 'billing-order-confirmed' moved from topology 'orders' to 'payments', so stack 'orders' would delete its topics .* set previousTopology: 'orders' on the consumer/),
    ]);
    expect(worstRisk(planChanges(before, after))).toBe('destructive');
  });

  it('with previousTopology, keeps every topic: removed blocks in the old stack, import blocks in the new one, and a needs-migration plan with the steps', () => {
    const after = modelOf(orders(shipping), payments(refundsSpec, aConsumer({ previousTopology: 'orders' })));
    expect(refusals(before, after)).toEqual([]);
    const moved = ['orders.confirmed.dlq', 'orders.confirmed.dlq.audit', 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1h', 'orders.confirmed.retry.1m'];
    const generated = stacks(after);
    expect(generated.payments!.import).toEqual(moved.map((id) => ({ to: `kafka_topic.${id.replace(/\./g, '_')}`, id })));
    const forgotten = generated.orders!.removed!.map((r) => r.from);
    expect(forgotten).toEqual(expect.arrayContaining([...moved.map((t) => `kafka_topic.${t.replace(/\./g, '_')}`), 'kafka_acl.billing_write_topic_orders_confirmed_dlq']));
    expect(generated.orders!.removed!.every((r) => r.lifecycle.destroy === false)).toBe(true);
    expect(Object.values(generated.orders!.resource!.kafka_topic!).map((t) => t.name)).not.toContain('orders.confirmed.dlq');
    const plan = planChanges(before, after);
    expect(lines(plan)).toContain(
      `needs-migration: moves from stack 'orders' to stack 'payments' with its records: 'payments' imports ${moved.map((t) => `'${t}'`).join(', ')} (import blocks) and 'orders' forgets them and the consumer's ACLs (removed, destroy = false); apply both stacks with Terraform or OpenTofu 1.7+, in either order (cdktf deploy orders payments), check that \`terraform plan\` then shows no changes in both, and remove previousTopology from the spec after that, saying so: \`krt synth --applied orders\``,
    );
    expect(worstRisk(plan)).toBe('needs-migration');
    expect(refunds.name).toBe('refunds');
  });

  it('keeps the blocks on a second synth before the apply, and lets the declaration go once applied', () => {
    const after = modelOf(orders(shipping), payments(refundsSpec, aConsumer({ previousTopology: 'orders' })));
    expect(refusals(after, after)).toEqual([]);
    expect(stacks(after).payments!.import).toHaveLength(5);
    const settled = modelOf(orders(shipping), payments(refundsSpec, aConsumer()));
    // Stack 'orders' no longer forgets what moved: only once it is said applied with those removed blocks (attack 36).
    expect(refusals(after, settled)).toEqual([expect.stringContaining("stack 'orders' would no longer forget 'orders.confirmed.dlq'")]);
    expect(refusals(after, settled, ['orders'])).toEqual([]);
    expect(stacks(settled).payments!.import).toBeUndefined();
    expect(lines(planChanges(after, settled, undefined, new Set(['orders'])))).toEqual(expect.arrayContaining([expect.stringMatching(/^needs-migration: stack 'payments' no longer has the import of 'orders\.confirmed\.dlq', .*: fine once it was applied with them/)]));
  });

  it('refuses a move combined with a new tier, whose import would fail on a topic that does not exist yet', () => {
    const after = modelOf(orders(shipping), payments(refundsSpec, aConsumer({ previousTopology: 'orders', ladder: ['1m', '10m', '1h', '6h'] })));
    expect(refusals(before, after)).toEqual([expect.stringMatching(/stack 'payments' would import 'orders\.confirmed\.retry\.6h', which no stack held before/)]);
  });
});

describe('finding 3: a topology renamed', () => {
  const before = modelOf(orders(aConsumer(), shipping));

  it('refuses the rename when the spec does not declare it: the old stack would delete every topic', () => {
    const after = modelOf(aTopology({ name: 'orders-v2', consumers: [aConsumer(), shipping] }));
    expect(refusals(before, after)).toEqual(
      expect.arrayContaining([expect.stringMatching(/consumer 'billing-order-confirmed' moved from topology 'orders' to 'orders-v2'.*previousName: 'orders' on topology 'orders-v2'/)]),
    );
  });

  it('with previousName, still generates the old stack with removed blocks only, and the new stack imports every topic', () => {
    const after = modelOf(aTopology({ name: 'orders-v2', previousName: 'orders', consumers: [aConsumer(), shipping] }));
    expect(refusals(before, after)).toEqual([]);
    const generated = stacks(after);
    expect(Object.keys(generated).sort()).toEqual(['orders', 'orders-v2']);
    expect(generated.orders!.resource).toBeUndefined();
    expect(generated.orders!.removed!.map((r) => r.from)).toEqual(expect.arrayContaining(['kafka_topic.orders_confirmed_dlq', 'kafka_topic.orders_shipped_dlq']));
    expect(generated['orders-v2']!.import!.map((i) => i.id)).toHaveLength(10);
    const plan = lines(planChanges(before, after));
    expect(plan.filter((l) => l.startsWith('needs-migration: moves from stack'))).toHaveLength(2);
    expect(plan.join('\n')).toContain('remove previousName from the spec after that');
    expect(plan.join('\n')).not.toMatch(/^destructive/m);
  });

  it('rejects previousName naming a topology that still exists', () => {
    const result = compile(orders(aConsumer()), aTopology({ name: 'payments', previousName: 'orders', consumers: [shipping] }));
    expect(result.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/^previousName 'orders' names a topology that still exists/)]);
  });

  it('once the old stack is applied and previousName removed, says the old stack is no longer generated', () => {
    const renamed = modelOf(aTopology({ name: 'orders-v2', previousName: 'orders', consumers: [aConsumer(), shipping] }));
    const settled = modelOf(aTopology({ name: 'orders-v2', consumers: [aConsumer(), shipping] }));
    expect(refusals(renamed, settled)).toEqual([expect.stringContaining("stack 'orders' would no longer forget")]);
    expect(refusals(renamed, settled, ['orders'])).toEqual([]);
    expect(lines(planChanges(renamed, settled, undefined, new Set(['orders'])))).toEqual(expect.arrayContaining([expect.stringMatching(/^needs-migration: stack 'orders' is no longer generated: apply it before deleting its folder/)]));
  });
});

describe('finding 4: the model snapshot deleted while krt manifest says krt made the folder', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    rmSync(project.path('generated/.krt-model.json'));
  });
  afterEach(() => project.remove());

  it('refuses to synth, says how to restore the snapshot, and writes nothing even for a consumer removed without decommissioning', async () => {
    project.write('topologies/analytics.ts', '');
    const before = project.read('generated/terraform/orders/cdk.tf.json');
    const synth = await project.krt('synth', 'topologies/orders.ts');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('git show main:./generated/.krt-model.json > ./generated/.krt-model.json');
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toBe(before);
  });

  it('refuses to plan as if it were the first synth', async () => {
    const plan = await project.krt('plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/generated\/\.krt-model\.json is missing, but \.krt-manifest beside it shows krt generated this folder/);
    expect(plan.stdout).not.toContain('everything below is new');
  });
});

describe('finding 5: what the plan says about changes Terraform makes, and only those', () => {
  it('calls compacting a managed main topic destructive, with the reason', () => {
    const before = modelOf(orders(aConsumer({ topic: managedMain })));
    const after = modelOf(orders(aConsumer({ topic: { ...managedMain, config: { 'cleanup.policy': 'compact' } } })));
    expect(lines(planChanges(before, after))).toContain(
      "destructive: 'orders.confirmed' switches cleanup.policy from 'delete' to 'compact': compaction deletes every record that a later record with the same key supersedes, and a null value deletes its key",
    );
  });

  it('calls a shorter retention on a managed main topic a migration', () => {
    const before = modelOf(orders(aConsumer({ topic: { ...managedMain, config: { 'retention.ms': 604800000 } } })));
    const after = modelOf(orders(aConsumer({ topic: { ...managedMain, config: { 'retention.ms': 86400000 } } })));
    expect(lines(planChanges(before, after))).toContain("needs-migration: 'orders.confirmed' keeps records 1d (retention.ms) instead of 7d: records older than 1d are deleted at once; make sure every group that reads it is past them");
  });

  it('refuses managed: false -> true unless previouslyManaged: false imports the existing topic', () => {
    const before = modelOf(orders(aConsumer()));
    const after = modelOf(orders(aConsumer({ topic: managedMain })));
    expect(refusals(before, after)).toEqual([expect.stringMatching(/^consumers\[0\]\.topic\.managed: main topic 'orders\.confirmed' exists already and was not managed here.*set previouslyManaged: false/)]);
    const adopted = modelOf(orders(aConsumer({ topic: { ...managedMain, previouslyManaged: false } })));
    expect(refusals(before, adopted)).toEqual([]);
    expect(stacks(adopted).orders!.import).toEqual([{ to: 'kafka_topic.orders_confirmed', id: 'orders.confirmed' }]);
    expect(lines(planChanges(before, adopted))).toContain(
      "destructive: stack 'orders' imports the existing topic 'orders.confirmed' (an import block) as Kafka has it, which krt cannot see offline: if it has more than 12 partitions, the provider would replace it with every record (prevent_destroy makes that apply stop instead), another replication factor is reassigned in place (Kafka 2.4 or newer), and its configs become exactly the spec's, judged here against the broker defaults; check with `krt plan --live` that it matches the spec, apply with Terraform or OpenTofu 1.7+ (an older one would try to create the topic and fail), then drop previouslyManaged from the spec",
    );
  });

  it('never calls destructive fewer partitions on an unmanaged main topic, which Terraform does not touch', () => {
    const explicit = (partitions: number) =>
      aConsumer({ topic: { name: 'orders.confirmed', partitions }, ladder: ['1m', '10m', '1h'].map((delay) => ({ delay, partitions: 12 })), dlq: { partitions: 12 } });
    const before = modelOf(orders(explicit(12)));
    const after = modelOf(orders(explicit(6)));
    const plan = planChanges(before, after);
    expect(plan.refused).toEqual([]);
    expect(worstRisk(plan)).toBe('safe');
    expect(lines(plan)).toEqual(["safe: main topic 'orders.confirmed' now says 6 partitions (was 12); krt does not manage it, so nothing changes in Terraform for it"]);
    expect(emitTerraform(after).find((f) => f.path.endsWith('orders/cdk.tf.json'))!.content).toBe(emitTerraform(before).find((f) => f.path.endsWith('orders/cdk.tf.json'))!.content);
  });

  it('accepts a group rename, telling how to carry the offsets over, without calling it an ordering switch', () => {
    const before = modelOf(orders(aConsumer()));
    const after = modelOf(orders(aConsumer({ group: 'billing-v2' })));
    expect(refusals(before, after)).toEqual([]);
    expect(lines(planChanges(before, after)).join('\n')).not.toContain('ordering');
    expect(lines(planChanges(before, after))).toEqual(expect.arrayContaining([expect.stringMatching(/^needs-migration: the group that reads the tiers changes from 'billing-order-confirmed.retry' to 'billing-v2.retry'/)]));
  });
});

describe('finding 6: a partition decrease is refused on every topic the stack holds, not only the DLQ', () => {
  const shrink = (topic: string) => new RegExp(`'${topic.replace(/\./g, '\\.')}' would shrink from 24 to 12 partitions`);

  it('refuses it on a tier', () => {
    const before = modelOf(orders(aConsumer({ ladder: ['1m', { delay: '10m', partitions: 24 }, '1h'] })));
    expect(refusals(before, modelOf(orders(aConsumer())))).toEqual([expect.stringMatching(shrink('orders.confirmed.retry.10m'))]);
  });

  it('refuses it on a managed main topic', () => {
    const before = modelOf(orders(aConsumer({ topic: { ...managedMain, partitions: 24 } })));
    expect(refusals(before, modelOf(orders(aConsumer({ topic: managedMain, ladder: ['1m', '10m', '1h'].map((delay) => ({ delay, partitions: 24 })), dlq: { partitions: 24 } }))))).toEqual([
      expect.stringMatching(shrink('orders.confirmed')),
    ]);
  });

  it('refuses it on the DLQ audit log (a snapshot whose audit log had 24 partitions)', () => {
    const after = modelOf(orders(aConsumer()));
    const before = JSON.parse(JSON.stringify(after)) as { topologies: { consumers: { dlqAudit: { partitions: number } }[] }[] };
    before.topologies[0]!.consumers[0]!.dlqAudit.partitions = 24;
    expect(refusals(before as unknown as ProjectModel, after)).toEqual([expect.stringMatching(/'orders\.confirmed\.dlq\.audit' would shrink from 24 to 1 partitions/)]);
  });

  it('refuses it on the DLQ', () => {
    const before = modelOf(orders(aConsumer({ dlq: { partitions: 24 } })));
    expect(refusals(before, modelOf(orders(aConsumer())))).toEqual([expect.stringMatching(shrink('orders.confirmed.dlq'))]);
  });
});

describe('krt plan --json and krt synth on a renamed topology', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('carries what Terraform does with the topics, and synth writes both stacks', async () => {
    project.edit('topologies/analytics.ts', "name: 'analytics',", "name: 'analytics-v2',\n  previousName: 'analytics',");
    const plan = await project.krt('plan', '--json');
    expect(plan.code).toBe(0);
    const topics = ['orders.confirmed.analytics-orders.dlq', 'orders.confirmed.analytics-orders.dlq.audit', 'orders.confirmed.analytics-orders.retry.1m', 'orders.confirmed.analytics-orders.retry.5s'];
    expect(JSON.parse(plan.stdout).changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ topology: 'analytics-v2', consumer: 'analytics-orders', risk: 'needs-migration', terraform: { action: 'move', stacks: ['analytics', 'analytics-v2'], topics } }),
      ]),
    );
    expect(JSON.parse(plan.stdout).summary).toEqual(expect.objectContaining({ destructive: 0, refused: 0 }));
    expect((await project.krt('synth')).code).toBe(0);
    const old = JSON.parse(project.read('generated/terraform/analytics/cdk.tf.json')) as StackJson;
    expect(old.resource).toBeUndefined();
    expect(old.removed!.map((r) => r.from)).toEqual(expect.arrayContaining(topics.map((t) => `kafka_topic.${t.replace(/[.]/g, '_')}`)));
    const renamed = JSON.parse(project.read('generated/terraform/analytics-v2/cdk.tf.json')) as StackJson;
    expect(renamed.import!.map((i) => i.id)).toEqual(topics);
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });
});

describe('a consumer renamed in place', () => {
  it('is no deletion: its topics stay in the stack, and the plan says it was renamed and they exist already', () => {
    const before = modelOf(orders(aConsumer(), shipping));
    const after = modelOf(orders(aConsumer({ name: 'billing-v2', group: 'billing-order-confirmed' }), shipping));
    const plan = planChanges(before, after);
    expect(plan.refused).toEqual([]);
    expect(lines(plan)).toContain(
      "safe: renamed from 'billing-order-confirmed': keeps 'orders.confirmed.retry.1m', 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1h', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit', which exist already",
    );
    expect(lines(plan).join('\n')).not.toMatch(/^destructive/m);
  });
});

describe('golden Terraform of declared moves', () => {
  it('matches the golden files of a renamed topology: the former stack forgets, the new one imports and hands a main topic back', () => {
    const model = modelOf(
      aTopology({ name: 'orders-v2', previousName: 'orders', consumers: [aConsumer({ topic: { ...managedMain, managed: false, previouslyManaged: true } }), shipping] }),
    );
    expect(refusals(modelOf(orders(aConsumer({ topic: managedMain }), shipping)), model)).toEqual([]);
    const files = Object.fromEntries(emitTerraform(model).map((f) => [f.path, f.content]));
    expect(Object.keys(files).sort()).toEqual(['terraform/orders-v2/cdk.tf.json', 'terraform/orders/cdk.tf.json']);
    expectGolden('terraform/renamed-topology-former-stack.tf.json', files['terraform/orders/cdk.tf.json']!);
    expectGolden('terraform/renamed-topology.tf.json', files['terraform/orders-v2/cdk.tf.json']!);
  });
});

describe('a declared move combined with another edit', () => {
  it('refuses fewer partitions on a topic the new stack imports: the import adopts it, then the provider replaces it', () => {
    const before = modelOf(orders(aConsumer({ topic: managedMain })));
    const after = modelOf(aTopology({ name: 'orders-v2', previousName: 'orders', consumers: [aConsumer({ topic: { ...managedMain, partitions: 6 }, ladder: ['1m', '10m', '1h'].map((delay) => ({ delay, partitions: 12 })), dlq: { partitions: 12 } })] }));
    expect(refusals(before, after)).toEqual([expect.stringMatching(/^consumers\[0\]\.topic\.partitions: 'orders\.confirmed' would shrink from 12 to 6 partitions/)]);
  });
});
