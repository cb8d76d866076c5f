import { App } from 'cdktf';
import { compileFiles } from '../compile';
import { TopologyStack } from '../emitters/terraform';
import { discoverTopologyFiles } from '../load/load-topologies';
import { formatDiagnostic } from '../validate/diagnostic';

/**
 * The `app` of cdktf.json: `cdktf synth` and `cdktf deploy` build the same stacks as
 * `krt synth`, from the same topologies, one stack per topology.
 */
async function main(): Promise<void> {
  const cwd = process.cwd();
  const result = await compileFiles(discoverTopologyFiles(cwd), cwd);
  for (const diagnostic of result.diagnostics) process.stderr.write(`${formatDiagnostic(diagnostic)}\n`);
  if (!result.model) {
    process.exitCode = 1;
    return;
  }
  const app = new App();
  for (const topology of result.model.topologies) new TopologyStack(app, topology);
  app.synth();
}

void main();
