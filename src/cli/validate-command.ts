import { compileFiles } from '../compile';
import { EXIT } from './io';
import type { CliIo } from './io';
import { describeModel, reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

export async function validateCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const result = await compileFiles(resolveTopologyFiles(io.cwd, args), io.cwd);
  if (reportDiagnostics(io, result)) return EXIT.problems;
  io.stdout(`ok: ${describeModel(result)} valid\n`);
  return EXIT.ok;
}
