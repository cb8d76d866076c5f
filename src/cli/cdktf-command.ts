import path from 'node:path';
import { App } from 'cdktf';
import { guardChanges, readBaseline, readCommittedStacks, withRemovedStacks, withUntouched } from '../plan';
import { compileFiles } from '../compile';
import { topologyStacks } from '../emitters/terraform';
import { EXIT } from './io';
import type { CliIo } from './io';
import { reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

export interface CdktfOptions {
  /** The output folder holding the committed model snapshot and stacks (`--out`, default `generated`). */
  readonly out: string;
}

/**
 * The cdktf app (`"app": "npx krt cdktf"` in cdktf.json): `cdktf synth` and
 * `cdktf deploy` build the same stacks as `krt synth`, one per topology, into the
 * folder cdktf names in CDKTF_OUTDIR. `cdktf deploy` applies what this builds from the
 * specs as they are now, so it runs the guard `krt synth` runs, against the same
 * committed snapshot and stacks, and builds nothing that `krt synth` would refuse to write.
 */
export async function cdktfCommand(io: CliIo, args: readonly string[], options: CdktfOptions = { out: 'generated' }): Promise<number> {
  const files = resolveTopologyFiles(io.cwd, args);
  const result = await compileFiles(files, io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const outDir = path.resolve(io.cwd, options.out);
  const baseline = readBaseline(outDir, io.cwd);
  const committed = baseline && readCommittedStacks(outDir);
  // The same stacks as `krt synth`: a deleted topology file's stack too, and with some
  // files named, the other topologies as committed (not taken for deleted).
  const model = withRemovedStacks(baseline, args.length > 0 ? withUntouched(baseline, result.model, files, io.cwd) : result.model, committed);
  const notes = guardChanges(baseline, model, undefined, committed);
  if (reportDiagnostics(io, { diagnostics: notes })) {
    io.stderr('krt cdktf refuses what krt synth refuses: no stack was built, so cdktf deploys nothing; `krt plan` shows the whole change\n');
    return EXIT.problems;
  }
  const app = new App();
  for (const topology of model.topologies) topologyStacks(app, topology);
  app.synth();
  return EXIT.ok;
}
