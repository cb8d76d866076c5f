import path from 'node:path';
import { synthesize } from '../synth/synthesize';
import { EXIT } from './io';
import type { CliIo } from './io';
import { describeModel, plural, reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

export interface SynthOptions {
  readonly check: boolean;
  readonly out: string;
  /** Reuse what earlier runs generated from unchanged inputs (default); `--no-cache` turns it off. */
  readonly cache?: boolean;
  /** Kept stacks of deleted topology files the operator applied since the last synth. */
  readonly applied?: readonly string[];
}

export async function synthCommand(io: CliIo, args: readonly string[], options: SynthOptions): Promise<number> {
  const outDir = path.resolve(io.cwd, options.out);
  const result = await synthesize({ cwd: io.cwd, files: resolveTopologyFiles(io.cwd, args, true), someFiles: args.length > 0, outDir, check: options.check, cache: options.cache, applied: options.applied, notice: (line) => io.stderr(`${line}\n`) });
  if (reportDiagnostics(io, result.compiled) || result.kind === 'invalid') return EXIT.problems;
  if (result.kind === 'refused') {
    reportDiagnostics(io, { diagnostics: result.refusals });
    return EXIT.problems;
  }
  reportDiagnostics(io, { diagnostics: result.guardNotes });
  const { summary, model, reused } = result;
  const shownOut = path.relative(io.cwd, outDir) || '.';
  if (options.check) {
    if (summary.drift.length === 0) {
      io.stdout(`ok: ${shownOut}/ is up to date with ${describeModel(result.compiled)}\n`);
      return EXIT.ok;
    }
    for (const d of summary.drift) io.stderr(`${d.reason.padEnd(7)} ${path.join(shownOut, d.path)}\n`);
    io.stderr(`${plural(summary.drift.length, 'file')} out of date: run \`krt synth\` and commit the result\n`);
    return EXIT.problems;
  }
  for (const file of summary.written) io.stdout(`wrote   ${path.join(shownOut, file)}\n`);
  for (const file of summary.removed) io.stdout(`removed ${path.join(shownOut, file)}\n`);
  const reusedNote = reused > 0 ? `; ${reused} of ${plural(model.topologies.length, 'topology', 'topologies')} unchanged, reused from the cache` : '';
  io.stdout(
    `synthesized ${describeModel(result.compiled)} into ${shownOut}/: ${plural(summary.written.length, 'file')} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed${reusedNote}\n`,
  );
  return EXIT.ok;
}
