import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';
import type { ProjectModel } from '../model/types';
import { OutputFolderError } from './write-generated';

/**
 * The model the committed output was generated from, kept beside it so `krt plan` and
 * the guards of `krt synth` can tell what an edit changes (a tier retimed, a consumer
 * removed) without a cluster. Plain JSON of the frozen model: deterministic.
 */
export const MODEL_SNAPSHOT_FILE = '.krt-model.json';

/** Bumped when the snapshot's shape changes incompatibly; older ones are read as absent. */
const SNAPSHOT_VERSION = 1;

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
  if (parsed.version !== SNAPSHOT_VERSION || !Array.isArray(parsed.topologies)) {
    throw new SnapshotError(`${file} was written by another version of krt; run \`krt synth\` on the last deployed commit with this version, then plan again`);
  }
  return { topologies: parsed.topologies as ProjectModel['topologies'] };
}
