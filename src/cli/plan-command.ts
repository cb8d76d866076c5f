import { existsSync } from 'node:fs';
import path from 'node:path';
import { compileFiles } from '../compile';
import type { ProjectModel } from '../model/types';
import { acrossFiles, formatPlan, outputHasStacks, planChanges, planJson, readBaseline, readCommittedStacks, withAppliedStacks, withRemovedStacks, withUntouched, worstRisk } from '../plan';
import { MODEL_SNAPSHOT_FILE } from '../writer/model-snapshot';
import { MANIFEST_FILE } from '../writer/write-generated';
import { assertReadableFolder } from '../writer/readable-folder';
import { EXIT } from './io';
import type { CliIo } from './io';
import { reportDiagnostics } from './report';
import { resolveTopologyFiles, UsageError } from './topology-files';
import { assertOutputFolderPath } from '../writer/output-folder-path';

export interface PlanOptions {
  readonly out: string;
  readonly json: boolean;
  readonly live: boolean;
  readonly minInsyncReplicas?: string;
  /** Whether `--out` was given on the command line (not the default): a folder named there that does not exist is a mistake. */
  readonly outGiven?: boolean;
  /** Kept stacks of deleted topology files the operator applied since the last synth. */
  readonly applied?: readonly string[];
}

/** Exit codes of `krt plan`: CI stops on `destructive` (offline) or `drift` (--live) until someone looks. */
export const PLAN_EXIT = { ...EXIT, destructive: 3, drift: 4 } as const;

/** `krt plan`: what the spec changes against the committed output, offline, writing nothing. */
export async function planCommand(io: CliIo, args: readonly string[], options: PlanOptions): Promise<number> {
  const files = resolveTopologyFiles(io.cwd, args, !options.live);
  // No topology file left, offline: the deleted ones' stacks are judged, as krt synth keeps them.
  const retired = files.length === 0 && !options.live && outputHasStacks(path.resolve(io.cwd, options.out));
  const result = await compileFiles(files, io.cwd, undefined, args.length > 0 ? 'some files' : 'project', retired);
  if (reportDiagnostics(io, result) || !result.model) return PLAN_EXIT.problems;
  if (options.live) return liveCommand(io, result.model, options);
  if (options.minInsyncReplicas !== undefined) throw new UsageError('--min-insync-replicas applies only with --live (the offline plan judges the spec against the committed output, which already holds the setting)');
  const outDir = path.resolve(io.cwd, options.out);
  assertOutputFolderPath(outDir, io.cwd);
  // A plan against a folder that is not there calls every change new and exits 0: a typo, or a CI checkout of the wrong path, must not pass as safe.
  if (options.outGiven) assertHoldsSynthOutput(outDir, options.out, io.cwd);
  const committed = withAppliedStacks(readBaseline(outDir, io.cwd, { applied: options.applied, notice: (line) => io.stderr(`${line}\n`) }), options.applied ?? []);
  const stacks = readCommittedStacks(outDir);
  // A plan of some files judges only those: the other topologies stay as committed.
  // And the stacks of deleted topology files stay, empty, as krt synth keeps them.
  const merged = args.length > 0 ? withUntouched(committed, result.model, files, io.cwd) : result.model;
  if (args.length > 0 && reportDiagnostics(io, { diagnostics: acrossFiles(merged, result.diagnostics) })) return PLAN_EXIT.problems;
  const plan = planChanges(committed, withRemovedStacks(committed, merged, stacks), stacks, new Set(options.applied ?? []));
  const baseline = path.join(path.relative(io.cwd, outDir) || '.', MODEL_SNAPSHOT_FILE);
  io.stdout(options.json ? planJson(plan) : formatPlan(plan, baseline));
  if (plan.refused.length > 0) return PLAN_EXIT.problems;
  return worstRisk(plan) === 'destructive' ? PLAN_EXIT.destructive : PLAN_EXIT.ok;
}

/**
 * An `--out` named on the command line must hold what krt synth wrote: a folder that is not
 * there, or holds none of it (a typo, a checkout's root instead of its generated/, an empty
 * folder), planned every change as new and exited 0, so a destructive one passed as safe.
 */
function assertHoldsSynthOutput(outDir: string, shown: string, cwd: string): void {
  if (!existsSync(outDir)) {
    throw new UsageError(`--out ${shown}: no such folder; krt plan compares the spec with the model snapshot krt synth committed there (check the path, or run \`krt synth --out ${shown}\` first)`);
  }
  assertReadableFolder(outDir, cwd);
  if (!existsSync(path.join(outDir, MANIFEST_FILE)) && !existsSync(path.join(outDir, MODEL_SNAPSHOT_FILE))) {
    throw new UsageError(`--out ${shown} holds no output of krt synth (no ${MANIFEST_FILE}, no ${MODEL_SNAPSHOT_FILE}); krt plan compares the spec with the model snapshot krt synth committed there: check the path (the output folder, not the project's root)`);
  }
}

/** `krt plan --live`: the cluster against the spec, read with describe-only calls. */
async function liveCommand(io: CliIo, model: ProjectModel, options: PlanOptions): Promise<number> {
  const minInsyncReplicas = options.minInsyncReplicas === undefined ? undefined : Number(options.minInsyncReplicas);
  if (minInsyncReplicas !== undefined && !(Number.isInteger(minInsyncReplicas) && minInsyncReplicas >= 1)) {
    throw new UsageError(`--min-insync-replicas must be a whole number of at least 1, not '${options.minInsyncReplicas}'`);
  }
  // Required here: the live check loads kafkajs, which the offline plan (and every other command) does without.
  const { kafkaFromEnv } = require('../connection/kafka-connection') as typeof import('../connection/kafka-connection');
  const { compareLive, formatLive, liveJson, liveQuery, readClusterState } = require('../plan/live') as typeof import('../plan/live');
  const admin = kafkaFromEnv(io.env ?? process.env, 'krt-plan-live').admin();
  await admin.connect();
  try {
    const findings = compareLive(model, await readClusterState(admin, liveQuery(model)), { minInsyncReplicas });
    io.stdout(options.json ? liveJson(findings) : formatLive(findings));
    return findings.some((f) => f.kind === 'drift') ? PLAN_EXIT.drift : PLAN_EXIT.ok;
  } finally {
    await admin.disconnect();
  }
}
