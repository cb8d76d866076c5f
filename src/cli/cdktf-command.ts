import path from 'node:path';
import { App } from 'cdktf';
import { readBaseline, withRemovedStacks } from '../plan';
import { compileFiles } from '../compile';
import { topologyStacks } from '../emitters/terraform';
import { EXIT } from './io';
import type { CliIo } from './io';
import { reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

/**
 * The cdktf app (`"app": "npx krt cdktf"` in cdktf.json): `cdktf synth` and
 * `cdktf deploy` build the same stacks as `krt synth`, one per topology, into the
 * folder cdktf names in CDKTF_OUTDIR.
 */
export async function cdktfCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const result = await compileFiles(resolveTopologyFiles(io.cwd, args), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const app = new App();
  // The same stacks as `krt synth`: a deleted topology file's stack too, kept in the committed snapshot.
  const model = withRemovedStacks(readBaseline(path.resolve(io.cwd, 'generated'), io.cwd), result.model);
  for (const topology of model.topologies) topologyStacks(app, topology);
  app.synth();
  return EXIT.ok;
}
