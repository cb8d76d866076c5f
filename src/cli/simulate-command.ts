import { existsSync } from 'node:fs';
import path from 'node:path';
import { ORDERING_STRATEGIES } from '../spec/types';
import type { OrderingStrategy } from '../spec/types';
import { readScenario } from '../simulate/scenario';
import { formatSimulation, simulate } from '../simulate/simulate';
import { EXIT } from './io';
import type { CliIo } from './io';
import { UsageError } from './topology-files';

/** The scenario of seed 004, shipped with the package. */
export const DEFAULT_SCENARIO = path.resolve(__dirname, '..', '..', 'examples', 'scenarios', 'seed-004.yml');

export async function simulateCommand(io: CliIo, scenarioFile: string | undefined, options: { ordering?: string }): Promise<number> {
  if (options.ordering !== undefined && !(ORDERING_STRATEGIES as readonly string[]).includes(options.ordering)) {
    throw new UsageError(`unknown ordering '${options.ordering}'; use one of ${ORDERING_STRATEGIES.join(', ')}`);
  }
  const file = scenarioFile ? path.resolve(io.cwd, scenarioFile) : DEFAULT_SCENARIO;
  // A file that is not there was named wrong (usage, as a missing topology file); one that is there and wrong is invalid.
  if (scenarioFile && !existsSync(file)) throw new UsageError(`no such scenario file: ${scenarioFile}`);
  const scenario = readScenario(file);
  const result = await simulate(scenario, options.ordering as OrderingStrategy | undefined);
  io.stdout(formatSimulation(result));
  return EXIT.ok;
}
