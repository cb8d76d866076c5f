import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';
import type { ProjectModel } from '../model/types';
import { modelSnapshotSchema } from './model-snapshot-schema';
import { OutputFolderError } from './write-generated';

/**
 * The model the committed output was generated from, kept beside it so `krt plan` and
 * the guards of `krt synth` can tell what an edit changes (a tier retimed, a consumer
 * removed) without a cluster. Plain JSON of the frozen model: deterministic.
 */
export const MODEL_SNAPSHOT_FILE = '.krt-model.json';

/**
 * Bumped whenever the model gains, loses or changes a field (2: environment labels, the
 * drift principal, four alerts, mayHold of kept stacks). A snapshot of another version is
 * refused with the way to regenerate it: an absent field must never decide for a guard.
 */
export const SNAPSHOT_VERSION = 2;

export function modelSnapshotFile(model: ProjectModel): GeneratedFile {
  const snapshot = { '//': GENERATED_NOTICE, version: SNAPSHOT_VERSION, ...model };
  return { path: MODEL_SNAPSHOT_FILE, content: `${JSON.stringify(snapshot, null, 2)}\n` };
}

/** A snapshot krt cannot read: like any other problem with the output folder. */
export class SnapshotError extends OutputFolderError {}

/** The model of the last synth into `outDir`, or undefined before the first one. */
export function readModelSnapshot(outDir: string): ProjectModel | undefined {
  const file = path.join(outDir, MODEL_SNAPSHOT_FILE);
  if (!existsSync(file)) return undefined;
  let parsed: { version?: unknown; topologies?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch {
    throw new SnapshotError(`${file} is not valid JSON; restore it from git (git checkout -- ${file}) or run \`krt synth\` on the last deployed commit`);
  }
  const regenerate = `regenerate it on the commit it was written on (e.g. the base branch): there, delete the output folder and run \`krt synth\` with this krt (a first synth, which judges nothing, so only there), check that \`git diff\` shows no change but ${MODEL_SNAPSHOT_FILE}, commit it, then run this again`;
  if (parsed.version !== SNAPSHOT_VERSION) {
    const which = typeof parsed.version === 'number' && parsed.version < SNAPSHOT_VERSION ? `an older krt (snapshot version ${parsed.version})` : `another krt (snapshot version ${String(parsed.version)})`;
    throw new SnapshotError(`${file} was written by ${which}, and this krt reads version ${SNAPSHOT_VERSION}: ${regenerate}`);
  }
  const checked = modelSnapshotSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SnapshotError(`${file} is not a model snapshot this krt can read (${issue.path.join('.')}: ${issue.message}), although it says version ${SNAPSHOT_VERSION}: ${regenerate}`);
  }
  return { topologies: parsed.topologies as ProjectModel['topologies'] };
}
