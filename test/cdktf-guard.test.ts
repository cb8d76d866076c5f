import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileTree, ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * Attack on the plan guard's reach: `cdktf deploy` runs the app in cdktf.json,
 * `npx krt cdktf`, which compiles topologies/*.ts as they are now and writes their stacks
 * (src/cli/cdktf-command.ts) without the guard `krt synth` and `krt plan` run
 * (guardChanges against the committed snapshot). An edit that `krt synth` refuses
 * (a tier removed without draining) is deployed as it stands, deleting the tier with its
 * records: the refusal holds only for whoever runs `krt synth` first.
 */
describe('cdktf deploy of an edit krt synth refuses', () => {
  let project: ScratchProject;
  let outDir: string;
  const saved = process.env.CDKTF_OUTDIR;
  beforeEach(() => {
    project = new ScratchProject();
    outDir = mkdtempSync(path.join(os.tmpdir(), 'krt-attack-cdktf-'));
    process.env.CDKTF_OUTDIR = outDir;
  });
  afterEach(() => {
    project.remove();
    rmSync(outDir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });

  const stackTopics = (stack = 'orders') => {
    const file = path.join(outDir, 'stacks', stack, 'cdk.tf.json');
    if (!existsSync(file)) return undefined;
    const json = JSON.parse(readFileSync(file, 'utf8')) as { resource?: { kafka_topic?: Record<string, { name: string }> } };
    return Object.values(json.resource?.kafka_topic ?? {}).map((t) => t.name).sort();
  };

  it('builds the committed stacks unchanged when the spec is unchanged (held)', async () => {
    const result = await project.krt('cdktf');
    expect(result.code).toBe(0);
    expect(stackTopics()).toContain('orders.confirmed.retry.1h');
  });

  // Was a defect: krt cdktf (the app cdktf deploy runs) never ran guardChanges.
  it('refuses, as krt synth does, a tier removed without draining, and writes no stack that deletes it', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '10m']");
    const synth = await project.krt('synth');
    expect(synth.code).not.toBe(0); // krt synth refuses: deletes 'orders.confirmed.retry.1h' with every record waiting in it
    expect(synth.stderr).toContain('orders.confirmed.retry.1h');

    const cdktf = await project.krt('cdktf');
    expect({ code: cdktf.code === 0 ? 'ok' : 'refused', stackWithoutTheTier: stackTopics()?.includes('orders.confirmed.retry.1h') === false }).toEqual({ code: 'refused', stackWithoutTheTier: false });
  });

  it('says, as krt synth does, what the change would delete and that nothing was built for cdktf to deploy', async () => {
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '10m']");
    const cdktf = await project.krt('cdktf');
    expect(cdktf.code).toBe(1);
    expect(cdktf.stderr).toContain("tier 1h left the ladder, which would delete 'orders.confirmed.retry.1h' with every record waiting in it");
    expect(cdktf.stderr).toContain('krt cdktf builds only what krt synth wrote: the spec gives other Terraform than generated/terraform/orders');
    expect(cdktf.stderr).toContain('no stack was built, so cdktf deploys nothing');
    expect(fileTree(outDir)).toEqual({}); // no stack file at all
  });

  it('judges against the output folder --out names, not generated/ whatever it says', async () => {
    renameSync(project.path('generated'), project.path('infra'));
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '10m']");
    const cdktf = await project.krt('cdktf', '--out', 'infra');
    expect({ code: cdktf.code, built: stackTopics() !== undefined }).toEqual({ code: 1, built: false });
    expect(cdktf.stderr).toContain("'orders.confirmed.retry.1h'");
  });

  it('with some files named, builds the other topologies as committed, not as deleted (empty) stacks', async () => {
    const cdktf = await project.krt('cdktf', 'topologies/orders.ts');
    expect(cdktf.code).toBe(0);
    const committed = JSON.parse(project.read('generated/terraform/analytics/cdk.tf.json')) as { resource: { kafka_topic: Record<string, { name: string }> } };
    expect(stackTopics('analytics')).toEqual(Object.values(committed.resource.kafka_topic).map((t) => t.name).sort());
  });
});
