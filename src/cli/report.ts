import type { CompileResult } from '../compile';
import { formatDiagnostic } from '../validate/diagnostic';
import type { CliIo } from './io';

/** Prints every diagnostic, then a one-line verdict. Returns whether there were errors. */
export function reportDiagnostics(io: CliIo, result: CompileResult): boolean {
  for (const diagnostic of result.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.length - errors;
  if (errors > 0) {
    io.stderr(`${plural(errors, 'error')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}: nothing was written\n`);
    return true;
  }
  return false;
}

export function describeModel(result: CompileResult): string {
  const topologies = result.model?.topologies ?? [];
  const consumers = topologies.reduce((n, t) => n + t.consumers.length, 0);
  return `${plural(topologies.length, 'topology', 'topologies')}, ${plural(consumers, 'consumer')}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
