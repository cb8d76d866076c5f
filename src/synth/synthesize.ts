import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { krtFingerprint } from '../cache/fingerprint';
import { OutputHashes } from '../cache/output-hashes';
import { SynthCache, TRANSPILE_DIR } from '../cache/synth-cache';
import { compileFiles } from '../compile';
import type { CompileResult } from '../compile';
import type { ProjectModel } from '../model/types';
import { acrossFiles, generatedStacks, guardChanges, judgeOutcome, outputHasStacks, readBaseline, readCommittedStacks, withAppliedStacks, withDeletionsRecorded, withRemovedStacks, withUntouched } from '../plan';
import type { Diagnostic } from '../validate/diagnostic';
import { hasErrors, sortDiagnostics } from '../validate/diagnostic';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile } from '../writer/model-snapshot';
import { OutputFolder } from '../writer/write-generated';
import type { Drift, WriteSummary } from '../writer/write-generated';
import { emitModel } from './cached-emit';
import { knownBaseline, rememberBaseline } from './known-baseline';
import { ModelKeys } from './model-keys';
import { stacksAsGenerated } from './stacks-as-generated';
import { assertOutputFolderPath } from '../writer/output-folder-path';
import { assertNotHalfWritten, stampOf } from '../writer/writing-marker';

export interface SynthRequest {
  /** The project folder: where the cache lives and paths are shown from. */
  readonly cwd: string;
  /** The topology files to load (absolute). */
  readonly files: readonly string[];
  /** Whether these are some of the project's files, named by the user: the other topologies are kept as committed. */
  readonly someFiles: boolean;
  /** The output folder (absolute). */
  readonly outDir: string;
  /** Compare with the folder and write nothing. */
  readonly check: boolean;
  /** Reuse what earlier runs generated from unchanged inputs (default). */
  readonly cache?: boolean;
  /** Kept stacks of deleted topology files the operator applied (`--applied`): their state holds nothing now. */
  readonly applied?: readonly string[];
  /** Told when the committed snapshot was written by an older krt and migrated. */
  readonly notice?: (line: string) => void;
}

export type SynthResult =
  /** The specs have errors (or the compile found no model): nothing was written. */
  | { readonly kind: 'invalid'; readonly compiled: CompileResult }
  /** The guards refused what the change would do to Terraform's state: nothing was written. */
  | { readonly kind: 'refused'; readonly compiled: CompileResult; readonly refusals: readonly Diagnostic[] }
  /** Written (or, with check, compared). */
  | {
      readonly kind: 'done';
      readonly compiled: CompileResult;
      /** The model as the snapshot records it. */
      readonly model: ProjectModel;
      /** What the guards said that does not stop the synth (warnings). */
      readonly guardNotes: readonly Diagnostic[];
      readonly summary: WriteSummary & { readonly drift: readonly Drift[] };
      readonly reused: number;
    };

/**
 * `krt synth` as a library call: spec files in, the generated folder written (or
 * compared), nothing printed. Every topology file is loaded and validated on every run,
 * cache or not: what a spec's code reads while it loads is in the model it yields, and
 * the cache is keyed on that model alone.
 */
export async function synthesize(request: SynthRequest): Promise<SynthResult> {
  const { cwd, files, outDir, check } = request;
  assertOutputFolderPath(outDir, cwd);
  // Before the cache may vouch for the snapshot: a folder a synth did not finish is no baseline.
  assertNotHalfWritten(outDir, cwd);
  // Before anything is read: a synth that writes the folder meanwhile is told apart at this one's first write.
  const judgedAgainst = { path: MODEL_SNAPSHOT_FILE, stamp: stampOf(path.join(outDir, MODEL_SNAPSHOT_FILE)) };
  // No fingerprint (a library version that cannot be read): no cache, as with --no-cache.
  const fingerprint = request.cache !== false ? krtFingerprint() : undefined;
  const cache = fingerprint === undefined ? undefined : new SynthCache(cwd, fingerprint);
  const hashes = new OutputHashes(cache, outDir);
  // The loader's own cache of compiled TypeScript is checked against each file's text, so it is safe to keep.
  // No topology file left: the committed stacks of the deleted ones are still generated, empty.
  const retired = files.length === 0 && outputHasStacks(outDir);
  let compiled = await compileFiles(files, cwd, cache && { transpileCache: path.join(cwd, TRANSPILE_DIR) }, request.someFiles ? 'some files' : 'project', retired);
  if (!compiled.model || compiled.diagnostics.some((d) => d.severity === 'error')) return { kind: 'invalid', compiled };
  const models = new ModelKeys(cache?.fingerprint);
  // A synth of some files keeps the other topologies as committed (see withUntouched), and
  // every synth keeps the stacks of deleted topology files (see withRemovedStacks).
  const applied = request.applied ?? [];
  const needed = !check || request.someFiles || applied.length > 0 || retired || hasOtherStacks(outDir, compiled.model) || recordsHeld(outDir);
  // A version-1 snapshot was never recorded by this krt: it always goes through the migrating read.
  const read = needed ? ((cache && knownBaseline(cache, hashes, models, compiled.model)) ?? readBaseline(outDir, cwd, { applied, notice: request.notice })) : undefined;
  const baseline = withAppliedStacks(read, applied);
  const committed = baseline && !check ? readCommittedStacks(outDir, 'terraform', cache && stacksAsGenerated(baseline, compiled.model, models, cache, hashes)) : undefined;
  const merged = request.someFiles ? withUntouched(baseline, compiled.model, files, cwd) : compiled.model;
  if (request.someFiles) {
    const clashes = acrossFiles(merged, compiled.diagnostics);
    if (hasErrors(clashes)) return { kind: 'invalid', compiled: { diagnostics: sortDiagnostics([...compiled.diagnostics, ...clashes]) } };
    // Warnings across files are told as a full synth tells them (found by attack 38).
    compiled = { ...compiled, diagnostics: sortDiagnostics([...compiled.diagnostics, ...clashes]) };
  }
  const model = withRemovedStacks(baseline, merged, committed);

  // Only writing is guarded: --check says whether generated/ matches, `krt plan` why not.
  const outcome = check || !baseline ? undefined : judgeOutcome(baseline, model, committed, new Set(applied));
  const guardNotes = outcome ? guardChanges(baseline, model, outcome, committed) : [];
  if (guardNotes.some((d) => d.severity === 'error')) return { kind: 'refused', compiled, refusals: guardNotes };

  const folder = new OutputFolder(outDir, check ? 'check' : 'write', judgedAgainst);
  const { paths, reused } = emitModel(model, folder, cache, hashes, models);
  // What the stacks deleted stays recorded until they are applied (see held-by-state.ts); nothing is generated from it.
  const recorded = outcome ? withDeletionsRecorded(model, outcome.held) : model;
  const snapshot = modelSnapshotFile(recorded);
  folder.put(snapshot);
  const summary = folder.finish([...paths, MODEL_SNAPSHOT_FILE]);
  // The folder holds this snapshot now (written, or found equal by a check).
  if (cache && !summary.drift.some((d) => d.path === MODEL_SNAPSHOT_FILE)) rememberBaseline(cache, models, recorded, snapshot.content);
  hashes.save();
  cache?.save();
  return { kind: 'done', compiled, model: recorded, guardNotes, summary, reused };
}

/**
 * Whether the output folder has a Terraform stack that no topology generates: the stack
 * of a deleted topology file, kept in the committed snapshot, which a check must then read.
 * Listing one folder is cheap; parsing the snapshot of a large repository is not.
 */
function hasOtherStacks(outDir: string, model: ProjectModel): boolean {
  let stacks: string[];
  try {
    stacks = readdirSync(path.join(outDir, 'terraform'));
  } catch {
    return false;
  }
  const generated = generatedStacks(model);
  return stacks.some((stack) => !generated.has(stack));
}

/**
 * Whether the committed snapshot records what a stack may still hold (see held-by-state.ts),
 * which the specs do not say, so a check must read it. Searching the text is cheap;
 * parsing it is not. A snapshot that cannot be read is read (and refused) by the caller.
 */
function recordsHeld(outDir: string): boolean {
  try {
    return readFileSync(path.join(outDir, MODEL_SNAPSHOT_FILE), 'utf8').includes('"mayHold"');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
