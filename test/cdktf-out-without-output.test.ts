import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * `krt cdktf` never writes the folder --out names; a folder with no output of krt synth
 * means --out names the wrong place (a typo in cdktf.json's app, generated/ not checked
 * out in the deploy job), never "nothing deployed yet": it builds nothing (finding 3a7a864,
 * where every guard turned off).
 */
describe('krt cdktf with --out naming a folder that holds no output', () => {
  let project: ScratchProject;
  let outDir: string;
  const saved = process.env.CDKTF_OUTDIR;
  beforeEach(() => {
    project = new ScratchProject();
    outDir = mkdtempSync(path.join(os.tmpdir(), 'krt-attack-cdktf-out-'));
    process.env.CDKTF_OUTDIR = outDir;
    // A tier removed without draining: krt synth and krt cdktf --out generated refuse it.
    project.edit('topologies/orders.ts', "ladder: ['1m', '10m', '1h']", "ladder: ['1m', '10m']");
  });
  afterEach(() => {
    project.remove();
    rmSync(outDir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.CDKTF_OUTDIR;
    else process.env.CDKTF_OUTDIR = saved;
  });

  const builtWithoutTier = () => {
    const file = path.join(outDir, 'stacks', 'orders', 'cdk.tf.json');
    return existsSync(file) && !readFileSync(file, 'utf8').includes('orders.confirmed.retry.1h');
  };

  it('refuses against the folder that holds the output', async () => {
    const cdktf = await project.krt('cdktf', '--out', 'generated');
    expect({ code: cdktf.code, built: builtWithoutTier() }).toEqual({ code: 1, built: false });
  });

  it('does not build a stack that deletes the tier when --out names a folder that does not exist', async () => {
    const cdktf = await project.krt('cdktf', '--out', 'genrated');
    expect({ code: cdktf.code === 0 ? 'built' : 'stopped', built: builtWithoutTier() }).toEqual({ code: 'stopped', built: false });
    expect(cdktf.stderr).toContain('genrated/ holds no output of krt synth');
  });
});
