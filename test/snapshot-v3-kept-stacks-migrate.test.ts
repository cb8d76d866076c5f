import { rmSync } from 'node:fs';
import { readModelSnapshot, SNAPSHOT_VERSION } from '../src/writer/model-snapshot';
import { inOldShape } from './helpers/old-snapshot';
import { fileTree, ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * Up to snapshot version 3, krt carried the stack of a deleted topology file as a hand-over
 * of nothing in the first topology; version 4 carries it at project level (`keptStacks`), so
 * that a project's last topology can be deleted too. A snapshot the released krt wrote is
 * migrated: the kept stack, what it may hold and the cluster settings its Terraform was
 * generated with are kept, and the next synth writes the same output, snapshot aside.
 */
describe('a version-3 snapshot carrying a kept stack in its first topology', () => {
  let project: ScratchProject;
  let written: Record<string, string>;
  let current: string;
  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
    written = fileTree(project.path('generated'));
    current = project.read('generated/.krt-model.json');
    // As the released krt wrote it.
    project.write('generated/.krt-model.json', `${JSON.stringify(inOldShape(JSON.parse(current), 3), null, 2)}\n`);
    expect(project.read('generated/.krt-model.json')).not.toContain('keptStacks');
  });
  afterEach(() => project.remove());

  it('reads as the model of the current version, the kept stack at project level and no longer a hand-over', () => {
    const old = readModelSnapshot(project.path('generated'));
    expect(old?.migratedFrom).toBe(3);
    expect(old!.model.topologies.flatMap((t) => t.handedOver ?? [])).toEqual([]);
    expect(old!.model.keptStacks?.map((k) => k.stack)).toEqual(['analytics']);
    expect(old!.model.keptStacks?.[0]?.mayHold?.topics.map((t) => t.name)).toEqual(expect.arrayContaining(['orders.confirmed.analytics-orders.dlq']));
    project.write('generated/.krt-model.json', current);
    expect(JSON.parse(JSON.stringify(old!.model))).toEqual(JSON.parse(JSON.stringify(readModelSnapshot(project.path('generated'))!.model)));
  });

  it('is migrated by krt synth, which says so and writes the same output, the snapshot at the current version', async () => {
    const check = await project.krt('synth', '--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('differs generated/.krt-model.json\n1 file out of date');
    const synth = await project.krt('synth');
    expect(synth.code).toBe(0);
    expect(synth.stderr).toContain(`(snapshot version 3): migrated to version ${SNAPSHOT_VERSION}, kept stacks and what they may still hold included`);
    expect(synth.stdout).toContain('1 file written');
    expect(fileTree(project.path('generated'))).toEqual(written);
    expect(await project.krt('synth', '--check')).toMatchObject({ code: 0, stderr: '' });
  });

  it('still refuses the kept stack’s topics declared again elsewhere until told it was applied', async () => {
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
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("stack 'analytics', kept (empty) since its topology file was deleted, may still hold them");
    expect((await project.krt('synth', '--applied', 'analytics')).code).toBe(0);
  });
});
