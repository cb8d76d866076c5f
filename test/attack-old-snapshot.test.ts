import { rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * Attack on the snapshot's version (src/writer/model-snapshot.ts): "Bumped when the
 * snapshot's shape changes incompatibly; older ones are read as absent" — and read as a
 * cast, never checked. SNAPSHOT_VERSION is still 1 since the snapshot came in (commit
 * 2439c00), while the model gained required fields: topologies[].environmentLabels,
 * principals.drift, and four alert policies per consumer (consumerDown,
 * dlqRecordsExpired, mainConsumerLag, monitorDown). A generated/.krt-model.json that krt
 * wrote then (exactly the shape below: `git show 2439c00:generated/.krt-model.json`)
 * passes the version check, and every command that reads it dies in the guard with
 * "Cannot read properties of undefined (reading 'replay')"-style TypeErrors out of the
 * ACL rules, where the message promises one sentence and the command to run.
 */
describe('a model snapshot written by an earlier krt under the same version number', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    const snapshot = JSON.parse(project.read('generated/.krt-model.json')) as {
      version: number;
      topologies: { environmentLabels?: unknown; principals: Record<string, string>; consumers: { alerts: Record<string, unknown> }[] }[];
    };
    expect(snapshot.version).toBe(1);
    for (const topology of snapshot.topologies) {
      delete topology.environmentLabels;
      delete topology.principals.drift;
      for (const consumer of topology.consumers) for (const alert of ['consumerDown', 'dlqRecordsExpired', 'mainConsumerLag', 'monitorDown']) delete consumer.alerts[alert];
    }
    project.write('generated/.krt-model.json', `${JSON.stringify(snapshot, null, 2)}\n`);
  });
  afterEach(() => project.remove());

  const outcome = (run: Promise<{ code: number; stdout: string; stderr: string }>) => run.catch((error: Error) => ({ code: -1, stdout: '', stderr: `threw ${error.name}: ${error.message}` }));

  // Defect: the version was not bumped and the snapshot is not validated, so krt plan
  // throws a TypeError instead of planning or saying which krt wrote the snapshot.
  it.failing('makes krt plan say the snapshot is from another krt (or plan), never throw a TypeError', async () => {
    const plan = await outcome(project.krt('plan'));
    expect(plan.stderr).not.toMatch(/TypeError|Cannot read properties of undefined/);
    expect([0, 1]).toContain(plan.code);
  });

  it.failing('makes krt synth say the same, never throw a TypeError', async () => {
    const synth = await outcome(project.krt('synth'));
    expect(synth.stderr).not.toMatch(/TypeError|Cannot read properties of undefined/);
    expect([0, 1]).toContain(synth.code);
  });
});

/*
 * The same door, silent: kept stacks came in at f360f25 and what they may still hold
 * (`mayHold`) at 4523196, both under snapshot version 1. A snapshot written in between
 * carries a deleted topology's kept stack without mayHold, which today means "applied,
 * holds nothing" (src/plan/removed-stacks.ts heldBy): the consumer of the deleted file
 * declared again in another topology is accepted, although the kept stack was never
 * applied; 'orders' then fails to create topics that exist, and applying the kept stack
 * deletes them with their records. An absent field decides for the permissive side.
 */
describe('a kept stack in a snapshot written before mayHold existed, under the same version number', () => {
  let project: ScratchProject;
  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    // As krt wrote it between f360f25 and 4523196: the kept stack, without mayHold.
    const snapshot = JSON.parse(project.read('generated/.krt-model.json')) as { topologies: { handedOver?: { mayHold?: unknown }[] }[] };
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

  // Defect: no mayHold is read as "the kept stack was applied"; nothing says it was.
  it.failing('refuses the consumer declared again while the kept stack may still hold its topics', async () => {
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
  });
});
