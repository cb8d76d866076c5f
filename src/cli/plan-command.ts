import path from 'node:path';
import type { Command } from 'commander';
import { compileFiles } from '../compile';
import { formatPlan, planChanges, planJson, worstRisk } from '../plan';
import { MODEL_SNAPSHOT_FILE, readModelSnapshot } from '../writer/model-snapshot';
import { EXIT } from './io';
import type { CliIo } from './io';
import { reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

export interface PlanOptions {
  readonly out: string;
  readonly json: boolean;
}

/** Exit codes of `krt plan`: CI stops on `destructive` until someone reviews it. */
export const PLAN_EXIT = { ...EXIT, destructive: 3 } as const;

/** `krt plan`: what the spec changes against the committed output, offline, writing nothing. */
export async function planCommand(io: CliIo, args: readonly string[], options: PlanOptions): Promise<number> {
  const result = await compileFiles(resolveTopologyFiles(io.cwd, args), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return PLAN_EXIT.problems;
  const outDir = path.resolve(io.cwd, options.out);
  const plan = planChanges(readModelSnapshot(outDir), result.model);
  const baseline = path.join(path.relative(io.cwd, outDir) || '.', MODEL_SNAPSHOT_FILE);
  io.stdout(options.json ? planJson(plan) : formatPlan(plan, baseline));
  if (plan.refused.length > 0) return PLAN_EXIT.problems;
  return worstRisk(plan) === 'destructive' ? PLAN_EXIT.destructive : PLAN_EXIT.ok;
}

/** Registers `krt plan` (and, with --live, the drift check) on the program. */
export function addPlanCommand(program: Command, io: CliIo, filesHelp: string, done: (exitCode: number) => void): void {
  program
    .command('plan')
    .description('compare the specs with the committed generated/ and say, per consumer, what changes and how safe it is; writes nothing')
    .argument('[files...]', filesHelp)
    .option('--out <dir>', 'the output folder holding the committed model snapshot', 'generated')
    .option('--json', 'print JSON for CI', false)
    .addHelpText('after', '\nExit codes: 0 nothing destructive, 1 spec errors or changes krt synth refuses, 2 usage error, 3 destructive changes planned.')
    .action(async (files: string[], options: PlanOptions) => done(await planCommand(io, files, options)));
}
