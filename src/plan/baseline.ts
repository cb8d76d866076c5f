import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HeldResources, ProjectModel } from '../model/types';
import { MODEL_SNAPSHOT_FILE, migrationNotice, readModelSnapshot, SnapshotError } from '../writer/model-snapshot';
import { MANIFEST_FILE } from '../writer/write-generated';
import { readCommittedStacks } from './committed-stacks';
import { heldIn } from './held-by-state';
import { snapshotInHead } from './snapshot-in-head';
import { assertNotHalfWritten } from '../writer/writing-marker';
import { assertReadableFolder } from '../writer/readable-folder';

export interface BaselineOptions {
  /** Kept stacks the operator applied (`--applied`): a migrated snapshot takes their state as empty. */
  readonly applied?: readonly string[];
  /** What another record (the output folder's snapshot, for what cdktf built last) says kept stacks may hold. */
  readonly held?: ReadonlyMap<string, HeldResources>;
  /** Told when the snapshot was written by an older krt and migrated. */
  readonly notice?: (line: string) => void;
  /** Whether the folder is one a team commits (not cdktf's build folder): then a snapshot its last commit holds is lost when missing. */
  readonly committed?: boolean;
}

/**
 * The model the committed output was generated from, which every guard compares with.
 * Absent only before the first synth: when krt's own manifest shows it made the folder, or
 * the last commit holds the snapshot (the folder deleted whole), a missing snapshot is a lost
 * one (a merge resolution, a cleanup), and guessing "first synth" would turn every guard off. An older snapshot is migrated with what the
 * committed stacks declare (`folder`: see `readCommittedStacks`), never rebuilt from the spec.
 */
export function readBaseline(outDir: string, cwd: string, options: BaselineOptions = {}, folder = 'terraform'): ProjectModel | undefined {
  assertReadableFolder(outDir, cwd);
  assertNotHalfWritten(outDir, cwd);
  const shown = `./${path.relative(cwd, path.join(outDir, MODEL_SNAPSHOT_FILE)).split(path.sep).join('/')}`;
  let committed: ReturnType<typeof readCommittedStacks> | undefined;
  const committedHolding = (stack: string) => {
    committed ??= readCommittedStacks(outDir, folder);
    const resources = committed.get(stack);
    return (resources && heldIn(resources)) ?? options.held?.get(stack);
  };
  const snapshot = readModelSnapshot(outDir, { committedHolding, applied: options.applied });
  if (snapshot?.migratedFrom !== undefined) options.notice?.(migrationNotice(shown, snapshot.migratedFrom));
  if (snapshot) return snapshot.model;
  if (existsSync(path.join(outDir, MANIFEST_FILE))) {
    throw new SnapshotError(
      `${shown} is missing, but ${MANIFEST_FILE} beside it shows krt generated this folder, so krt cannot tell what the spec changes delete; restore it from the branch this one started from, e.g. \`git show main:${shown} > ${shown}\`, then run this again`,
    );
  }
  if (options.committed !== false && snapshotInHead(path.join(outDir, MODEL_SNAPSHOT_FILE), cwd)) {
    const folder = `./${path.relative(cwd, outDir).split(path.sep).join('/')}`;
    throw new SnapshotError(
      `${shown} is missing, and so is ${MANIFEST_FILE}, but the last commit holds them: the output folder was deleted, not never made, so krt cannot tell what the spec changes delete; restore it with \`git checkout HEAD -- ${folder}\` (your spec edits stay), then run this again`,
    );
  }
  return undefined;
}

/**
 * Whether the committed model snapshot in `outDir` still has topologies or kept stacks: a
 * project with no topology files left then still has stacks to generate (its last
 * topology file was deleted). Read only when there are no topology files. A snapshot that
 * is there but cannot be read counts, and so does one missing beside krt's manifest: the
 * command's own read of it says what is wrong.
 */
export function outputHasStacks(outDir: string): boolean {
  let text: string;
  try {
    text = readFileSync(path.join(outDir, MODEL_SNAPSHOT_FILE), 'utf8');
  } catch {
    // Lost beside krt's manifest: the command's read of the baseline says how to restore it (found by review 53).
    return existsSync(path.join(outDir, MANIFEST_FILE));
  }
  try {
    const parsed = JSON.parse(text) as { topologies?: unknown; keptStacks?: unknown };
    return !Array.isArray(parsed.topologies) || parsed.topologies.length > 0 || (Array.isArray(parsed.keptStacks) && parsed.keptStacks.length > 0);
  } catch {
    return true;
  }
}
