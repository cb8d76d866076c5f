import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readModelSnapshot, SNAPSHOT_VERSION, SnapshotError } from '../src/writer/model-snapshot';
import { inOldShape } from './helpers/old-snapshot';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * The model snapshot is versioned and checked on read, never cast (finding 4f8c2dc): the
 * version stayed 1 while the model gained required fields (environmentLabels,
 * principals.drift, four alert policies, mayHold of kept stacks), and a snapshot an
 * earlier krt wrote died in the guards with a TypeError, or, missing mayHold, read as "the
 * kept stack was applied". A version-1 snapshot is now migrated (see
 * snapshot-v1-migration.test.ts); one that says version 2 and lacks a field the guards read
 * was edited or mis-merged, and is refused in one sentence that says how to restore it
 * (never "regenerate from the spec", which would drop the kept stacks).
 */
describe('a model snapshot missing fields under the current version number', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    const snapshot = JSON.parse(project.read('generated/.krt-model.json')) as {
      version: number;
      topologies: { environmentLabels?: unknown; principals: Record<string, string>; consumers: { alerts: Record<string, unknown> }[] }[];
    };
    expect(snapshot.version).toBe(SNAPSHOT_VERSION);
    for (const topology of snapshot.topologies) {
      delete topology.environmentLabels;
      delete topology.principals.drift;
      for (const consumer of topology.consumers) for (const alert of ['consumerDown', 'dlqRecordsExpired', 'mainConsumerLag', 'monitorDown']) delete consumer.alerts[alert];
    }
    project.write('generated/.krt-model.json', `${JSON.stringify(snapshot, null, 2)}\n`);
  });
  afterEach(() => project.remove());

  const outcome = (run: Promise<{ code: number; stdout: string; stderr: string }>) => run.catch((error: Error) => ({ code: -1, stdout: '', stderr: `threw ${error.name}: ${error.message}` }));

  it('makes krt plan refuse in one sentence naming the missing field and how to restore it, never throw a TypeError', async () => {
    const plan = await outcome(project.krt('plan'));
    expect(plan.stderr).not.toMatch(/TypeError|Cannot read properties of undefined/);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('is not a model snapshot this krt can read (topologies.0.');
    expect(plan.stderr).toContain('restore it from git (git checkout -- ');
    expect(plan.stderr).not.toContain('delete the output folder');
  });

  it('makes krt synth say the same, never throw a TypeError', async () => {
    const synth = await outcome(project.krt('synth'));
    expect(synth.stderr).not.toMatch(/TypeError|Cannot read properties of undefined/);
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('is not a model snapshot this krt can read');
  });
});

/*
 * The same door, silent: kept stacks came in at f360f25 and what they may still hold
 * (`mayHold`) at 4523196, both under snapshot version 1. A snapshot written in between
 * carries a deleted topology's kept stack without mayHold, which in version 2 means
 * "applied, holds nothing" (src/plan/removed-stacks.ts heldBy): migrated as it is, the
 * consumer of the deleted file declared again in another topology would be accepted,
 * although the kept stack was never applied; 'orders' then fails to create topics that
 * exist, and applying the kept stack deletes them with their records. So the migration
 * never guesses that stack empty: it waits for the operator to say it was applied.
 */
describe('a kept stack in a snapshot written before mayHold existed (version 1)', () => {
  let project: ScratchProject;
  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    // As krt wrote it between f360f25 and 4523196: the kept stack (a hand-over of nothing in the first topology), without mayHold.
    const snapshot = inOldShape(JSON.parse(project.read('generated/.krt-model.json')), 1) as { topologies: { handedOver?: { mayHold?: unknown }[] }[] };
    for (const kept of snapshot.topologies.flatMap((t) => t.handedOver ?? [])) delete kept.mayHold;
    project.write('generated/.krt-model.json', `${JSON.stringify(snapshot, null, 2)}\n`);
    expect(project.read('generated/.krt-model.json')).not.toContain('mayHold');
    expect(project.read('generated/.krt-model.json')).toContain('"stack": "analytics"');
    project.edit(
      'topologies/orders.ts',
      '\n  ],',
      `
    {
      name: 'analytics-orders',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:analytics',
      retryTopicBase: 'orders.confirmed.analytics-orders',
      ladder: ['5s', '1m'],
      criticality: 'analytics',
    },
  ],`,
    );
  });
  afterEach(() => project.remove());

  it('refuses, naming the kept stack whose state the snapshot cannot tell and how to say it was applied', async () => {
    const before = project.read('generated/.krt-model.json');
    for (const command of ['synth', 'plan']) {
      const run = await project.krt(command);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("was written by an older krt (snapshot version 1), which did not record what the kept stack 'analytics' of a deleted topology file may still hold");
      expect(run.stderr).toContain('run `krt synth --applied analytics`, which migrates the snapshot and keeps every kept stack');
    }
    expect(project.read('generated/.krt-model.json')).toBe(before);
  });

  it('migrates once told the kept stack was applied, keeping it, and then accepts the consumer declared again', async () => {
    const synth = await project.krt('synth', '--applied', 'analytics');
    expect(synth.stderr).toContain('migrated to version');
    expect(synth.code).toBe(0);
    const snapshot = JSON.parse(project.read('generated/.krt-model.json')) as { version: number };
    expect(snapshot.version).toBe(SNAPSHOT_VERSION);
    expect(project.read('generated/.krt-model.json')).toContain('"stack": "analytics"');
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('orders.confirmed.analytics-orders.dlq');
    expect(project.read('generated/terraform/analytics/cdk.tf.json')).not.toContain('kafka_topic');
  });
});

/*
 * Every refusal of a snapshot gives a way out that keeps the kept stacks: restore the file
 * from git, or use a newer krt. Deleting the output folder and synthesizing again (the
 * old way out) rebuilds the snapshot from the spec alone, which has no kept stacks.
 */
describe('a model snapshot krt cannot read', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const refusal = (content: string): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-snapshot-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, '.krt-model.json'), content);
    try {
      readModelSnapshot(dir);
    } catch (error) {
      expect(error).toBeInstanceOf(SnapshotError);
      return (error as Error).message;
    }
    throw new Error('read without a refusal');
  };

  it.each([
    ['not JSON', '{"version": 2,', 'is not valid JSON: restore it from git (git checkout -- '],
    ['without a version', '{"topologies": []}', 'has no snapshot version krt knows (none): restore it from git'],
    ['of a version that is no number', '{"version": "2", "topologies": []}', 'has no snapshot version krt knows ("2"): restore it from git'],
    ['of version 1 in no shape version 1 had', '{"version": 1, "topologies": [{"name": "orders"}]}', 'says snapshot version 1 but is not one krt can migrate (topologies.0.'],
    ['of a newer version', '{"version": 5, "topologies": []}', 'was written by a newer krt (snapshot version 5), and this krt reads versions 1 to 4: run the krt that wrote it, or a newer one'],
  ])('is refused when %s, with a way out that keeps the kept stacks', (_, content, expected) => {
    const message = refusal(content);
    expect(message).toContain(expected);
    expect(message).not.toMatch(/delete the output folder|first synth/);
  });
});

/*
 * Version 3 records what a live stack deleted and may still hold (a topology's `mayHold`).
 * Version 2 had no such record: it reads as a version 3 in which no live stack holds
 * anything, told as a migration, and the next synth writes the current version.
 */
describe('a version-2 snapshot', () => {
  it('reads as the same model, migrated from version 2', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-snapshot-'));
    try {
      const current = JSON.parse(readFileSync(path.join(__dirname, '..', 'generated', '.krt-model.json'), 'utf8')) as { version: number };
      writeFileSync(path.join(dir, '.krt-model.json'), JSON.stringify({ ...current, version: 2 }));
      const asVersion2 = readModelSnapshot(dir);
      writeFileSync(path.join(dir, '.krt-model.json'), JSON.stringify(current));
      const asVersion3 = readModelSnapshot(dir);
      expect(asVersion2).toEqual({ model: asVersion3!.model, migratedFrom: 2 });
      expect(asVersion3!.model.topologies.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
