import path from 'node:path';
import { compileFiles } from '../compile';
import { emitAll } from '../emitters';
import { guardChanges } from '../plan';
import { modelSnapshotFile, readModelSnapshot } from '../writer/model-snapshot';
import { findDrift, writeGenerated } from '../writer/write-generated';
import { EXIT } from './io';
import type { CliIo } from './io';
import { describeModel, plural, reportDiagnostics } from './report';
import { resolveTopologyFiles } from './topology-files';

export interface SynthOptions {
  readonly check: boolean;
  readonly out: string;
}

export async function synthCommand(io: CliIo, args: readonly string[], options: SynthOptions): Promise<number> {
  const result = await compileFiles(resolveTopologyFiles(io.cwd, args), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const outDir = path.resolve(io.cwd, options.out);
  const files = [...emitAll(result.model), modelSnapshotFile(result.model)];
  const shownOut = path.relative(io.cwd, outDir) || '.';

  if (options.check) {
    const drift = findDrift(outDir, files);
    if (drift.length === 0) {
      io.stdout(`ok: ${shownOut}/ is up to date with ${describeModel(result)}\n`);
      return EXIT.ok;
    }
    for (const d of drift) io.stderr(`${d.reason.padEnd(7)} ${path.join(shownOut, d.path)}\n`);
    io.stderr(`${plural(drift.length, 'file')} out of date: run \`krt synth\` and commit the result\n`);
    return EXIT.problems;
  }

  // Only writing is guarded: --check says whether generated/ matches, `krt plan` why not.
  const refused = guardChanges(readModelSnapshot(outDir), result.model);
  if (reportDiagnostics(io, { diagnostics: refused })) return EXIT.problems;
  const summary = writeGenerated(outDir, files);
  for (const file of summary.written) io.stdout(`wrote   ${path.join(shownOut, file)}\n`);
  for (const file of summary.removed) io.stdout(`removed ${path.join(shownOut, file)}\n`);
  io.stdout(
    `synthesized ${describeModel(result)} into ${shownOut}/: ${plural(summary.written.length, 'file')} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed\n`,
  );
  return EXIT.ok;
}
