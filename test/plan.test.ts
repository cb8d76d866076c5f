import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { formatDuration, parseDuration } from '../src/duration';
import { emitRouter } from '../src/emitters/router';
import { emitTerraform } from '../src/emitters/terraform';
import { guardChanges, planChanges, worstRisk } from '../src/plan';
import type { Plan } from '../src/plan';
import type { ProjectModel } from '../src/model/types';
import { ScratchProject } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

function modelOf(...consumers: unknown[]): ProjectModel {
  const result = compile(aTopology({ consumers }));
  if (!result.model) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.model;
}

/** `risk: text` for every change of the plan, in order. */
function lines(plan: Plan): string[] {
  return plan.groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`));
}

function refusals(before: ProjectModel, after: ProjectModel): string[] {
  return guardChanges(before, after).map((d) => `${d.path}: ${d.message}`);
}

const base = modelOf(aConsumer());

describe('krt plan, offline against the committed model', () => {
  it('reports nothing when the spec did not change', () => {
    const plan = planChanges(base, modelOf(aConsumer()));
    expect(plan.groups).toEqual([]);
    expect(plan.refused).toEqual([]);
  });

  it('calls a retimed tier with a retired old tier a retime plus a draining tier, never a deletion', () => {
    const plan = planChanges(base, modelOf(aConsumer({ ladder: ['1m', '15m', '1h'], retired: ['10m'] })));
    expect(lines(plan)).toEqual(
      expect.arrayContaining([
        "safe: tier 2 retimed from 10m to 15m: creates 'orders.confirmed.retry.15m'",
        expect.stringMatching(/^needs-migration: tier 10m retired: 'orders.confirmed.retry.10m' is kept and still consumed/),
      ]),
    );
    expect(lines(plan).join('\n')).not.toMatch(/ACL removed|destructive/);
    expect(plan.refused).toEqual([]);
    expect(worstRisk(plan)).toBe('needs-migration');
  });

  it('refuses a tier that leaves the ladder without draining, and says how to retire it', () => {
    const after = modelOf(aConsumer({ ladder: ['1m', '15m', '1h'] }));
    expect(refusals(base, after)).toEqual([
      "consumers[0].ladder: tier 10m left the ladder, which would delete 'orders.confirmed.retry.10m' with every record waiting in it; add it to the retired tiers (retired: ['10m']) so it drains into the live tiers, and remove it once `krt plan --live` reports it empty",
    ]);
    expect(lines(planChanges(base, after))).toContain(
      "destructive: tier 10m removed without draining: deletes 'orders.confirmed.retry.10m' with every record waiting in it (krt synth refuses this)",
    );
  });

  it('keeps the partitions of a retired tier in the suggested retired entry', () => {
    const before = modelOf(aConsumer({ ladder: ['1m', { delay: '10m', partitions: 24 }, '1h'] }));
    expect(refusals(before, modelOf(aConsumer({ ladder: ['1m', '1h'] })))[0]).toContain("retired: [{ delay: '10m', partitions: 24 }]");
  });

  it('marks dropping a drained tier destructive, to be applied only after the live check saw it empty', () => {
    const draining = modelOf(aConsumer({ ladder: ['1m', '15m', '1h'], retired: ['10m'] }));
    const plan = planChanges(draining, modelOf(aConsumer({ ladder: ['1m', '15m', '1h'] })));
    expect(plan.refused).toEqual([]);
    expect(lines(plan)).toEqual(
      expect.arrayContaining([
        "destructive: drained tier 10m dropped: deletes 'orders.confirmed.retry.10m'; anything still in it is lost, so apply only after `krt plan --live` reported it empty",
      ]),
    );
    expect(worstRisk(plan)).toBe('destructive');
  });

  it('refuses removing a consumer that was not decommissioned first', () => {
    const other = aConsumer({ name: 'shipping', topic: { name: 'orders.shipped', partitions: 12 }, principal: 'User:shipping' });
    const before = modelOf(aConsumer(), other);
    expect(refusals(before, modelOf(other))).toEqual([
      expect.stringMatching(/^consumers: consumer 'billing-order-confirmed' was removed, which would delete its DLQ 'orders.confirmed.dlq' with every unhandled record.*put it back with decommissioned: true/),
    ]);
  });

  it('lets a decommissioned consumer go, and says what that deletes', () => {
    const other = aConsumer({ name: 'shipping', topic: { name: 'orders.shipped', partitions: 12 }, principal: 'User:shipping' });
    const decommissioned = modelOf(aConsumer({ decommissioned: true }), other);
    expect(lines(planChanges(modelOf(aConsumer(), other), decommissioned))).toEqual([
      expect.stringMatching(/^safe: marked decommissioned: nothing is deleted yet/),
    ]);
    const plan = planChanges(decommissioned, modelOf(other));
    expect(plan.refused).toEqual([]);
    expect(lines(plan)).toContain(
      "destructive: consumer removed: deletes 'orders.confirmed.retry.1m', 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1h', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' and their ACLs; first make sure `krt dlq inspect billing-order-confirmed` shows nothing left and `krt plan --live` reports its tiers empty; until you say that stack was applied (`krt synth --applied orders`), krt refuses to declare them elsewhere",
    );
  });

  it('refuses a partition decrease, because Kafka cannot shrink a topic', () => {
    const before = modelOf(aConsumer({ dlq: { partitions: 24 } }));
    expect(refusals(before, modelOf(aConsumer()))).toEqual([
      "consumers[0].dlq.partitions: 'orders.confirmed.dlq' would shrink from 24 to 12 partitions; Kafka cannot remove partitions, so the Terraform provider would delete and recreate the topic, losing its records; keep 24 (or more)",
    ]);
  });

  it('calls growing partitions safe', () => {
    const after = modelOf(aConsumer({ topic: { name: 'orders.confirmed', partitions: 24 } }));
    expect(lines(planChanges(base, after))).toEqual(
      expect.arrayContaining([
        "safe: main topic 'orders.confirmed' now has 24 partitions (was 12); its producers' team grows it, the tiers and DLQ follow here",
        "safe: 'orders.confirmed.dlq' grows from 12 to 24 partitions: records already in it stay where they are",
      ]),
    );
  });

  it('refuses renaming the DLQ, which would delete the old one', () => {
    const after = modelOf(aConsumer({ retryTopicBase: 'orders.confirmed.billing' }));
    expect(refusals(base, after)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^consumers\[0\]\.retryTopicBase: the DLQ would be renamed from 'orders.confirmed.dlq' to 'orders.confirmed.billing.dlq'/)]),
    );
  });

  it('explains an ordering switch that moves the tiers to another group, and accepts it once acknowledged', () => {
    const after = modelOf(aConsumer({ ordering: 'park-by-key' }));
    expect(refusals(base, after)).toEqual([
      "consumers[0].ordering: switching ordering from 'unordered' to 'park-by-key' moves the tiers from group 'billing-order-confirmed.retry' to group 'billing-order-confirmed', which would start from the beginning and run every retained tier record again; stop the consumers, wait until the tiers are drained (or commit 'billing-order-confirmed' at the offsets of 'billing-order-confirmed.retry'), then set previousOrdering: 'unordered' to confirm (see docs/changing-topologies.md)",
    ]);
    const acknowledged = modelOf(aConsumer({ ordering: 'park-by-key', previousOrdering: 'unordered' }));
    expect(refusals(base, acknowledged)).toEqual([]);
    expect(lines(planChanges(base, acknowledged))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^needs-migration: the group that reads the tiers changes from 'billing-order-confirmed.retry' to 'billing-order-confirmed'/)]),
    );
  });

  it('accepts a change between unordered and in-place-only without calling it an ordering switch: the tiers keep the group that reads them', () => {
    const inPlaceOnly = modelOf(aConsumer({ ordering: 'in-place-only', ladder: [], retired: ['1m', '10m', '1h'] }));
    expect(refusals(base, inPlaceOnly)).toEqual([]);
  });

  it('lists retention, alert threshold and ACL changes in operator words', () => {
    const after = modelOf(aConsumer({ dlq: { retention: '14d' }, criticality: 'money', principal: 'User:payments' }));
    expect(lines(planChanges(base, after))).toEqual(
      expect.arrayContaining([
        "needs-migration: 'orders.confirmed.dlq' keeps records 14d (retention.ms) instead of 28d: records older than 14d are deleted at once; replay or discard those first (krt dlq inspect billing-order-confirmed)",
        'safe: alert dlqNewMessages: threshold 10 -> 1, severity warning -> critical',
        "safe: ACL added: User:payments Read Topic 'orders.confirmed' (consume the main topic)",
        "needs-migration: ACL removed: User:billing Read Topic 'orders.confirmed'; deploy the services that no longer need it first",
      ]),
    );
  });

  it('reports everything as new before the first synth', () => {
    const plan = planChanges(undefined, base);
    expect(plan.hasBaseline).toBe(false);
    expect(lines(plan)).toContain(
      "safe: new consumer: creates 'orders.confirmed.retry.1m', 'orders.confirmed.retry.10m', 'orders.confirmed.retry.1h', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' and the ACLs of User:billing",
    );
  });
});

describe('durations in plan messages', () => {
  /** Delays as teams write them, from milliseconds to days, and odd ones (90 s, 1,500 ms, 25 h). */
  const delay = fc.oneof(
    fc.integer({ min: 1, max: 5_000 }),
    fc.integer({ min: 1, max: 600 }).map((s) => s * 1_000),
    fc.integer({ min: 1, max: 600 }).map((m) => m * 60_000),
    fc.integer({ min: 1, max: 48 }).map((h) => h * 3_600_000),
    fc.integer({ min: 1, max: 3_600_000 }),
  );

  it('never prints a changed delay as the same text, and every label reads back as the exact delay', () => {
    fc.assert(
      fc.property(delay, delay, (a, b) => {
        expect(parseDuration(formatDuration(a))).toEqual({ ok: true, ms: a });
        expect(formatDuration(a) === formatDuration(b)).toBe(a === b);
      }),
    );
  });

  it('says "retimed from X to Y" with X and Y the exact old and new delays, and never from a delay to itself', () => {
    fc.assert(
      fc.property(delay, delay, (a, b) => {
        const plan = planChanges(modelOf(aConsumer({ ladder: [formatDuration(a)] })), modelOf(aConsumer({ ladder: [formatDuration(b)], retired: a === b ? [] : [formatDuration(a)] })));
        const retimed = lines(plan).filter((l) => /retimed/.test(l));
        if (a === b) expect(retimed).toEqual([]);
        else expect(retimed).toEqual([expect.stringContaining(`tier 1 retimed from ${formatDuration(a)} to ${formatDuration(b)}: `)]);
        for (const [, from, to] of lines(plan).join('\n').matchAll(/retimed from (\S+) to (\S+?):/g)) expect(from).not.toBe(to);
      }),
      { numRuns: 60 },
    );
  });

  it('calls a tier whose delay stays but whose topic is renamed a rename that deletes the old topic, never safe and never a retime', () => {
    const plan = planChanges(base, modelOf(aConsumer({ retryTopicBase: 'orders.confirmed.billing' })));
    expect(lines(plan)).toContain(
      "destructive: tier 1m renamed from 'orders.confirmed.retry.1m' to 'orders.confirmed.billing.retry.1m' (retryTopicBase or naming changed): deletes 'orders.confirmed.retry.1m' with every record waiting in it and creates 'orders.confirmed.billing.retry.1m' empty (krt synth refuses this)",
    );
    expect(lines(plan).filter((line) => line.startsWith('safe: tier') && line.includes("'orders.confirmed.retry.1m'"))).toEqual([]);
    expect(lines(plan).join('\n')).not.toMatch(/retimed/);
  });

  it('refuses a renamed tier with the fix that works: keep the old names, never "retire" a delay still in the ladder', () => {
    const after = modelOf(aConsumer({ retryTopicBase: 'orders.confirmed.billing' }));
    const tierRefusals = refusals(base, after).filter((line) => line.includes('.retry.'));
    expect(tierRefusals).toContain(
      "consumers[0].retryTopicBase: tier 1m would be renamed from 'orders.confirmed.retry.1m' to 'orders.confirmed.billing.retry.1m' (retryTopicBase or naming changed), which deletes 'orders.confirmed.retry.1m' with every record waiting in it; keep the old names, or add a new consumer beside this one and decommission this one",
    );
    expect(tierRefusals.join('\n')).not.toMatch(/retired/);
  });
});

describe('the krt plan and krt synth commands', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it('finds no change on the committed output and exits 0', async () => {
    expect(await project.krt('plan')).toEqual({ code: 0, stdout: 'no changes against generated/.krt-model.json\n', stderr: '' });
  });

  it('prints the retire-a-tier plan per consumer and exits 0; synth then writes it', async () => {
    project.edit('topologies/orders.ts', "'10m', '1h'],", "'15m', '1h'], retired: ['10m'],");
    const plan = await project.krt('plan');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('orders / billing-order-confirmed\n  safe             tier 2 retimed from 10m to 15m');
    expect(plan.stdout).toMatch(/\n6 safe, 1 needs-migration, 0 destructive\n$/);
    expect((await project.krt('synth')).code).toBe(0);
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('"orders.confirmed.retry.10m"');
    expect((await project.krt('plan')).stdout).toBe('no changes against generated/.krt-model.json\n');
  });

  it('exits 1 and synth writes nothing when a tier is dropped without draining', async () => {
    project.edit('topologies/orders.ts', "'10m', '1h'],", "'15m', '1h'],");
    const before = project.read('generated/terraform/orders/cdk.tf.json');
    expect((await project.krt('plan')).code).toBe(1);
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toMatch(/^error topologies\/orders\.ts: consumers\[0\]\.ladder: tier 10m left the ladder/);
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toBe(before);
  });

  it('refuses to synth when a consumer disappears without decommissioned: true', async () => {
    rmSync(project.path('topologies/analytics.ts'));
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("consumer 'analytics-orders' was removed");
  });

  it('exits 3 with --json when a destructive change is planned', async () => {
    project.edit('topologies/orders.ts', "'10m', '1h'],", "'15m', '1h'], retired: ['10m'],");
    await project.krt('synth');
    project.edit('topologies/orders.ts', "retired: ['10m'],", '');
    const plan = await project.krt('plan', '--json');
    expect(plan.code).toBe(3);
    expect(JSON.parse(plan.stdout)).toEqual({
      baseline: true,
      changes: expect.arrayContaining([
        expect.objectContaining({ topology: 'orders', consumer: 'billing-order-confirmed', risk: 'destructive', text: expect.stringMatching(/^drained tier 10m dropped/) }),
      ]),
      refused: [],
      summary: expect.objectContaining({ destructive: 1, refused: 0 }),
    });
  });
});

describe('the spec fields that make a change safe', () => {
  it('rejects a tier that is both in the ladder and retired, or retired twice', () => {
    const both = compile(aTopology({ consumers: [aConsumer({ retired: ['10m'] })] }));
    expect(both.diagnostics.map((d) => `${d.path}: ${d.message}`)).toEqual([
      'consumers[0].retired[0]: tier 10m is both in the ladder and retired; a tier is either live or draining, so remove it from one list',
    ]);
    const twice = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '1h'], retired: ['10m', '10m'] })] }));
    expect(twice.diagnostics.map((d) => `${d.path}: ${d.message}`)).toEqual(['consumers[0].retired[1]: tier 10m is retired twice; list it once']);
  });

  it('holds a retired tier to the partition rules of a live one (R4)', () => {
    const result = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '1h'], retired: [{ delay: '10m', partitions: 6 }] })] }));
    expect(result.diagnostics.map((d) => d.path)).toEqual(['consumers[0].retired[0].partitions']);
  });

  it('keeps a retired tier in the Terraform and the router package, flagged as draining', () => {
    const model = modelOf(aConsumer({ ladder: ['1m', '15m', '1h'], retired: ['10m'] }));
    const consumer = model.topologies[0]!.consumers[0]!;
    expect(consumer.drainingTiers.map((t) => [t.name, t.index, t.draining])).toEqual([['orders.confirmed.retry.10m', 2, true]]);
    const terraform = JSON.parse(emitTerraform(model)[0]!.content);
    expect(terraform.resource.kafka_topic.orders_confirmed_retry_10m).toMatchObject({ name: 'orders.confirmed.retry.10m', partitions: 12 });
    expect(terraform.resource.kafka_acl['billing_read_topic_orders_confirmed_retry_10m']).toBeDefined();
    const router = emitRouter(model).find((f) => f.path.endsWith('index.js'))!.content;
    expect(router).toMatch(/"topic": "orders\.confirmed\.retry\.10m",\s+"delayMs": 600000,\s+"label": "10m",\s+"draining": true/);
  });
});
