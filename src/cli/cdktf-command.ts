import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'cdktf';
import { acrossFiles, generatedStacks, guardChanges, heldResources, outputHasStacks, readBaseline, readCommittedStacks, removedStacks, withHeldOf, withRemovedStacks, withUntouched } from '../plan';
import { compileFiles } from '../compile';
import type { ProjectModel } from '../model/types';
import { keptStacks, topologyStacks } from '../emitters/terraform';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile, SnapshotError } from '../writer/model-snapshot';
import { EXIT } from './io';
import type { CliIo } from './io';
import { reportDiagnostics } from './report';
import { staleStacks } from './cdktf-stale-stacks';
import { resolveTopologyFiles } from './topology-files';
import { assertOutputFolderPath } from '../writer/output-folder-path';
import { isRefusedWrite, reasonOf } from '../writer/write-failure';
import { KrtError } from '../runtime/krt-error';

export interface CdktfOptions {
  /** The output folder holding the committed model snapshot and stacks (`--out`, default `generated`). */
  readonly out: string;
}

/**
 * The cdktf app (`"app": "npx krt cdktf"` in cdktf.json): `cdktf synth` and `cdktf deploy`
 * apply what this builds. It builds only what `krt synth` wrote and its guards accepted:
 * the stacks the spec gives must be byte-identical to the committed ones in `--out`, so
 * the synth guard (and the review of its output) is the one gate, and no edit reaches a
 * cluster unjudged. It also judges the change from what it built last ($CDKTF_OUTDIR, what
 * cdktf deployed): a revert of committed output can undo a deployed move behind the guard.
 */
export async function cdktfCommand(io: CliIo, args: readonly string[], options: CdktfOptions = { out: 'generated' }): Promise<number> {
  const files = resolveTopologyFiles(io.cwd, args, true);
  const outDir = path.resolve(io.cwd, options.out);
  // No topology file left: the committed stacks of the deleted ones are built, empty, as krt synth wrote them.
  const result = await compileFiles(files, io.cwd, undefined, args.length > 0 ? 'some files' : 'project', files.length === 0 && outputHasStacks(outDir));
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const shownOut = path.relative(io.cwd, outDir) || '.';
  assertOutputFolderPath(outDir, io.cwd);
  // No snapshot: --out names a folder krt synth never wrote (a typo, output not checked out), not a first deploy.
  if (!existsSync(path.join(outDir, MODEL_SNAPSHOT_FILE))) {
    readBaseline(outDir, io.cwd); // a lost snapshot beside krt's manifest says how to restore it
    io.stderr(`krt cdktf builds only what krt synth wrote, and ${shownOut}/ holds no output of krt synth (no ${MODEL_SNAPSHOT_FILE}): run \`krt synth\`, review \`krt plan\`, commit ${shownOut}/, then deploy (or point --out at the output folder); no stack was built\n`);
    return EXIT.problems;
  }
  const notice = (line: string) => io.stderr(`${line}\n`);
  const baseline = readBaseline(outDir, io.cwd, { notice });
  const committed = readCommittedStacks(outDir);
  // The same stacks as `krt synth`: a deleted topology file's stack too, and with some
  // files named, the other topologies as committed (not taken for deleted).
  const merged = args.length > 0 ? withUntouched(baseline, result.model, files, io.cwd) : result.model;
  if (args.length > 0 && reportDiagnostics(io, { diagnostics: acrossFiles(merged, result.diagnostics) })) return EXIT.problems;
  const model = withRemovedStacks(baseline, merged, committed);

  const stale = staleStacks(model, outDir);
  if (stale.length > 0) {
    // What krt synth would say of the change, so the refusal is not only "run synth".
    reportDiagnostics(io, { diagnostics: guardChanges(baseline, model, undefined, committed) });
    io.stderr(
      `krt cdktf builds only what krt synth wrote: the spec gives other Terraform than ${stale.map((s) => `${shownOut}/terraform/${s}`).join(', ')}; run \`krt synth\` (it refuses what would lose records), review \`krt plan\`, commit ${shownOut}/, then deploy; no stack was built, so cdktf deploys nothing\n`,
    );
    return EXIT.problems;
  }

  const app = refusingWrites(() => new App(), 'cdktf.out');
  let previous: ProjectModel | undefined;
  try {
    // An older snapshot of what cdktf built last is migrated with what the output folder says kept stacks hold.
    const held = baseline ? heldResources(baseline) : new Map();
    const applied = [...removedStacks(baseline)].filter((stack) => !held.has(stack));
    previous = readBaseline(app.outdir, io.cwd, { held, applied, notice, committed: false }, 'stacks');
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    io.stderr(`krt cdktf cannot use ${path.join(app.outdir, MODEL_SNAPSHOT_FILE)}, what it built last (${error.message.split(': ')[0]}), so it cannot judge the committed output against it: once \`cdktf diff\` shows that applying the committed output deletes nothing, delete ${app.outdir} and run again; no stack was built\n`);
    return EXIT.problems;
  }
  // What stacks may still hold is the operator's word (--applied), given to krt synth and committed: judged by that record, not by cdktf's older copy.
  // What it built last was deployed (that is what this check is for): every stack of it counts as applied.
  const deployed = previous ? generatedStacks(previous) : new Set<string>();
  const fromPrevious = guardChanges(previous && withHeldOf(baseline, previous), model, undefined, previous && readCommittedStacks(app.outdir, 'stacks'), deployed);
  if (reportDiagnostics(io, { diagnostics: fromPrevious })) {
    io.stderr(
      `krt cdktf judges the committed output against what it built last in ${app.outdir} (what cdktf deployed), and refuses the change above: if that build was deployed, make the change as a spec edit krt synth accepts (a git revert of deployed output undoes it behind the guard); if it never was, delete ${app.outdir} and run again. Stacks applied since with terraform apply in ${shownOut}/terraform/<stack>/ changed that folder's state (terraform.tfstate there), not cdktf's (terraform.<stack>.tfstate in the project folder), which still holds what that build describes: deleting ${app.outdir} alone would let cdktf deploy destroy what those applies moved; keep to one way, or first copy each such stack's ${shownOut}/terraform/<stack>/terraform.tfstate over terraform.<stack>.tfstate, then delete ${app.outdir} and run again; no stack was built\n`,
    );
    return EXIT.problems;
  }
  for (const topology of model.topologies) topologyStacks(app, topology);
  keptStacks(app, model);
  refusingWrites(() => {
    app.synth();
    // What this build holds, for the next one to be judged against.
    mkdirSync(app.outdir, { recursive: true });
    writeFileSync(path.join(app.outdir, MODEL_SNAPSHOT_FILE), modelSnapshotFile(model).content);
  }, app.outdir);
  return EXIT.ok;
}

/**
 * Runs cdktf's writes into its output folder, a write the filesystem refuses (its rights, a
 * full disk) ending as a krt error rather than an internal one (found by the attack of
 * session 55). cdktf then deploys nothing: the app failed.
 */
function refusingWrites<T>(write: () => T, outdir: string): T {
  try {
    return write();
  } catch (error) {
    if (!isRefusedWrite(error)) throw error;
    throw new KrtError(`cannot write ${(error as NodeJS.ErrnoException).path ?? outdir}, cdktf's output folder: ${reasonOf(error)}; nothing is deployed: give krt cdktf the right to write there (or free space), then run cdktf again`, { cause: error });
  }
}
