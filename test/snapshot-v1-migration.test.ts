import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { stackTopics } from '../src/model/hand-over';
import type { ProjectModel } from '../src/model/types';
import { guardChanges, planChanges, withAppliedStacks, withRemovedStacks } from '../src/plan';
import { heldIn } from '../src/plan/held-by-state';
import { synthesizeStacks } from '../src/plan/stack-resources';
import type { StackResources } from '../src/plan/stack-resources';
import { modelSnapshotFile, readModelSnapshot, SnapshotError } from '../src/writer/model-snapshot';
import { ALERTS_ADDED_UNDER_VERSION_1, modelSnapshotSchema } from '../src/writer/model-snapshot-schema';
import { inOldShape } from './helpers/old-snapshot';
import { aConsumer, aTopology, compile } from './helpers/specs';

jest.setTimeout(300_000);

/** Bounded so that `npm test` stays fast (KRT_PROPERTY_RUNS raises it); a failure prints its seed and shrunk counterexample. */
const RUNS = Number(process.env.KRT_PROPERTY_RUNS ?? 30);

/*
 * Every snapshot version 1 could hold migrates to a version-2 model whose guard and plan
 * judge the same deletes as the version-2 snapshot of the same output. Version 1 kept its
 * number while the model gained fields (git log -p src/model/types.ts between 2439c00 and
 * 3b8741c): the drift principal, the environment labels and four alerts (2e29541,
 * ea1a774), kept stacks (f360f25) and what they may hold (4523196). A version-1 snapshot
 * is the version-2 one without any subset of those; one without a kept stack's mayHold
 * is migrated only once the operator says that stack was applied.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}

const managed = (name: string, partitions = 12) => ({ name, partitions, managed: true, config: { 'cleanup.policy': 'delete', 'retention.ms': 604800000 } });
const billing = aConsumer({ name: 'billing', topic: managed('orders.confirmed'), principal: 'User:billing' });
const shipping = aConsumer({ name: 'shipping', topic: { name: 'orders.shipped', partitions: 6 }, principal: 'User:shipping', ladder: ['30s', '5m'] });
const refunds = aConsumer({ name: 'refunds', topic: managed('refunds.requested', 6), principal: 'User:refunds', ladder: ['1m', '10m'], criticality: 'money' });
const ledger = aConsumer({ name: 'ledger', topic: { name: 'payments.settled', partitions: 3 }, principal: 'User:ledger', ladder: ['5m'], criticality: 'analytics' });
const analyticsOrders = aConsumer({ name: 'analytics-orders', topic: { name: 'orders.confirmed', partitions: 12 }, principal: 'User:analytics', retryTopicBase: 'orders.confirmed.analytics-orders', ladder: ['5s', '1m'], criticality: 'analytics' });

const orders = (...consumers: unknown[]) => aTopology({ name: 'orders', consumers });
// Environment labels: a version-1 snapshot may lack them (and the drift principal, and four alerts).
const payments = (...consumers: unknown[]) => aTopology({ name: 'payments', consumers, alerts: { environmentLabels: ['cluster'] } });
const analytics = (...consumers: unknown[]) => aTopology({ name: 'analytics', consumers });

/** The committed output of a project whose topology 'analytics' was deleted after its consumer was decommissioned. */
function committedProject(): { baseline: ProjectModel; committed: Map<string, StackResources> } {
  const before = modelOf(orders(billing, shipping), payments(refunds, ledger), analytics({ ...analyticsOrders, decommissioned: true }));
  const baseline = withRemovedStacks(before, modelOf(orders(billing, shipping), payments(refunds, ledger)), synthesizeStacks(before.topologies));
  return { baseline, committed: synthesizeStacks(baseline.topologies) };
}

/** Spec edits a team makes, safe and not: each as the topologies krt synth would compile. */
const EDITS: Record<string, () => unknown[]> = {
  unchanged: () => [orders(billing, shipping), payments(refunds, ledger)],
  'the kept stack’s consumer declared again in another topology': () => [orders(billing, shipping, analyticsOrders), payments(refunds, ledger)],
  'a consumer removed without being decommissioned': () => [orders(billing, shipping), payments(refunds)],
  'a managed main topic shrunk': () => [orders({ ...billing, topic: managed('orders.confirmed', 6) }, shipping), payments(refunds, ledger)],
  'a tier dropped without being retired': () => [orders(billing, shipping), payments({ ...refunds, ladder: ['1m'] }, ledger)],
  'a consumer moved to another topology undeclared': () => [orders(billing, shipping, refunds), payments(ledger)],
  'a managed main topic no longer managed': () => [orders({ ...billing, topic: { ...managed('orders.confirmed'), managed: false } }, shipping), payments(refunds, ledger)],
  'a topology renamed undeclared': () => [orders(billing, shipping), aTopology({ name: 'payment-flows', consumers: [refunds, ledger] })],
  'a consumer decommissioned': () => [orders(billing, shipping), payments(refunds, { ...ledger, decommissioned: true })],
  'a consumer added': () => [orders(billing, shipping), payments(refunds, ledger, aConsumer({ name: 'payouts', topic: { name: 'payouts', partitions: 3 }, principal: 'User:payouts' }))],
};
const SAFE_EDITS = ['unchanged', 'a consumer decommissioned', 'a consumer added'];

/** What the guard refuses and what the plan says Terraform does to topics, and every destructive line. */
function judged(before: ProjectModel, edit: string, committed: ReadonlyMap<string, StackResources>) {
  const after = withRemovedStacks(before, modelOf(...EDITS[edit]!()), committed);
  const plan = planChanges(before, after, committed);
  return {
    refused: guardChanges(before, after, undefined, committed).map((d) => `${d.path}: ${d.message}`),
    topics: plan.groups.flatMap((g) => g.changes.filter((c) => c.terraform || c.risk === 'destructive').map((c) => `${g.topology}/${g.consumer ?? ''} ${c.risk} ${c.terraform?.action ?? ''}: ${c.text}`)),
  };
}

/** Which of the fields version 1 gained along the way a snapshot lacks. */
interface Lacks {
  readonly drift: boolean;
  readonly environmentLabels: boolean;
  readonly alerts: readonly (typeof ALERTS_ADDED_UNDER_VERSION_1)[number][];
  readonly mayHold: boolean;
}

/** The version-2 snapshot written as version 1 without the fields `lacks` names. */
function asVersion1(baseline: ProjectModel, lacks: Lacks): Json {
  // Version 1 carried kept stacks as hand-overs of nothing in the first topology.
  const snapshot = inOldShape(JSON.parse(modelSnapshotFile(baseline).content) as Json, 1);
  for (const topology of snapshot.topologies) {
    if (lacks.drift) delete topology.principals.drift;
    if (lacks.environmentLabels) delete topology.environmentLabels;
    for (const consumer of topology.consumers) for (const key of lacks.alerts) delete consumer.alerts[key];
    if (lacks.mayHold) for (const kept of topology.handedOver ?? []) delete kept.mayHold;
  }
  return snapshot;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function snapshotFolder(snapshot: Json): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-snapshot-v1-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, '.krt-model.json'), JSON.stringify(snapshot));
  return dir;
}

/** Reads the snapshot as `krt synth` does: what a kept stack holds from the committed stacks (empty, once kept). */
function read(snapshot: Json, committed: ReadonlyMap<string, StackResources>, applied: readonly string[] = []): ProjectModel {
  const committedHolding = (stack: string) => {
    const resources = committed.get(stack);
    return resources && heldIn(resources);
  };
  const read = readModelSnapshot(snapshotFolder(snapshot), { applied, committedHolding });
  expect(read?.migratedFrom).toBe(1);
  return read!.model;
}

describe('a version-1 model snapshot, migrated', () => {
  const { baseline, committed } = committedProject();
  const none: Lacks = { drift: false, environmentLabels: false, alerts: [], mayHold: false };

  it('is the version-2 model of the same output, the kept stack and what it may hold included', () => {
    expect((baseline.keptStacks ?? []).map((k) => [k.stack, k.mayHold?.topics.map((t) => t.name)])).toEqual([
      ['analytics', expect.arrayContaining(['orders.confirmed.analytics-orders.dlq', 'orders.confirmed.analytics-orders.retry.5s'])],
    ]);
    expect(read(asVersion1(baseline, none), committed)).toEqual(JSON.parse(JSON.stringify(baseline)));
  });

  it('is judged against edits that the version-2 snapshot refuses, all but the safe ones', () => {
    const refusing = Object.keys(EDITS).filter((edit) => judged(baseline, edit, committed).refused.length > 0);
    expect(refusing).toEqual(Object.keys(EDITS).filter((edit) => !SAFE_EDITS.includes(edit)));
  });

  it.each(Object.keys(EDITS))('judges the same deletes as version 2 when it lacks every later field: %s', (edit) => {
    const all: Lacks = { drift: true, environmentLabels: true, alerts: ALERTS_ADDED_UNDER_VERSION_1, mayHold: false };
    expect(judged(read(asVersion1(baseline, all), committed), edit, committed)).toEqual(judged(baseline, edit, committed));
  });

  it.each(Object.keys(EDITS))('judges the same deletes as version 2 told the kept stack was applied, when written before mayHold: %s', (edit) => {
    const migrated = read(asVersion1(baseline, { ...none, mayHold: true }), committed, ['analytics']);
    expect((migrated.keptStacks ?? []).map((k) => k.stack)).toEqual(['analytics']);
    expect(judged(migrated, edit, committed)).toEqual(judged(withAppliedStacks(baseline, ['analytics'])!, edit, committed));
  });

  it('refuses a kept stack written before mayHold until told it was applied, naming it', () => {
    const dir = snapshotFolder(asVersion1(baseline, { ...none, mayHold: true }));
    expect(() => readModelSnapshot(dir)).toThrow(SnapshotError);
    expect(() => readModelSnapshot(dir)).toThrow("the kept stack 'analytics' of a deleted topology file may still hold");
  });

  it('gives, for any subset of the later fields and any edit, a model the version-2 reader accepts and the same judgment', () => {
    const lacks = fc.record({ drift: fc.boolean(), environmentLabels: fc.boolean(), alerts: fc.subarray([...ALERTS_ADDED_UNDER_VERSION_1]), mayHold: fc.boolean() });
    fc.assert(
      fc.property(lacks, fc.constantFrom(...Object.keys(EDITS)), (lack, edit) => {
        const applied = lack.mayHold ? ['analytics'] : [];
        const migrated = read(asVersion1(baseline, lack), committed, applied);
        expect(modelSnapshotSchema.safeParse(JSON.parse(modelSnapshotFile(migrated).content)).success).toBe(true);
        expect(judged(migrated, edit, committed)).toEqual(judged(withAppliedStacks(baseline, applied)!, edit, committed));
      }),
      { numRuns: RUNS },
    );
  });

  it('reads the first version-1 snapshot this repository committed (2439c00, before the drift principal, environment labels and four alerts), every topic kept', () => {
    const snapshot = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'model-snapshot-v1-2439c00.json'), 'utf8')) as Json;
    expect(snapshot.topologies[0].principals.drift).toBeUndefined();
    const migrated = read(snapshot, new Map());
    expect(modelSnapshotSchema.safeParse(JSON.parse(modelSnapshotFile(migrated).content)).success).toBe(true);
    const topics = (model: ProjectModel) => model.topologies.flatMap((t) => t.consumers.flatMap(stackTopics)).sort();
    expect(topics(migrated)).toEqual(topics(snapshot as unknown as ProjectModel));
    expect(topics(migrated)).toContain('orders.confirmed.dlq');
  });
});
