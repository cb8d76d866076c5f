import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ProjectModel } from '../model/types';
import { MODEL_SNAPSHOT_FILE, readModelSnapshot, SnapshotError } from '../writer/model-snapshot';
import { MANIFEST_FILE } from '../writer/write-generated';

/**
 * The model the committed output was generated from, which every guard compares with.
 * Absent only before the first synth: when krt's own manifest shows it made the folder,
 * a missing snapshot is a lost one (a merge resolution, a cleanup), and guessing "first
 * synth" would turn every guard off.
 */
export function readBaseline(outDir: string, cwd: string): ProjectModel | undefined {
  const model = readModelSnapshot(outDir);
  if (model || !existsSync(path.join(outDir, MANIFEST_FILE))) return model;
  const snapshot = `./${path.relative(cwd, path.join(outDir, MODEL_SNAPSHOT_FILE)).split(path.sep).join('/')}`;
  throw new SnapshotError(
    `${snapshot} is missing, but ${MANIFEST_FILE} beside it shows krt generated this folder, so krt cannot tell what the spec changes delete; restore it from the branch this one started from, e.g. \`git show main:${snapshot} > ${snapshot}\`, then run this again`,
  );
}
