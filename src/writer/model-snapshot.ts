import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from '../emitters/types';
import { GENERATED_NOTICE } from '../emitters/types';
import { isKeptStack } from '../model/hand-over';
import type { KeptStack, ProjectModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { modelSnapshotSchema, modelSnapshotV1Schema } from './model-snapshot-schema';
import { withEveryAlert } from './snapshot-alerts';
import type { ModelSnapshotV1 } from './model-snapshot-schema';
import { migrateFromVersion1 } from './model-snapshot-v1';
import type { MigrationSources } from './model-snapshot-v1';
import { OutputFolderError } from './write-generated';

/**
 * The model the committed output was generated from, kept beside it so `krt plan` and
 * the guards of `krt synth` can tell what an edit changes (a tier retimed, a consumer
 * removed) without a cluster. Plain JSON of the frozen model: deterministic.
 */
export const MODEL_SNAPSHOT_FILE = '.krt-model.json';

/**
 * Bumped whenever the model gains, loses or changes a field (2: environment labels, the
 * drift principal, four alerts, mayHold of kept stacks; 3: mayHold of live stacks, which
 * an older krt would drop on its next synth, so it must refuse the snapshot instead; 4:
 * kept stacks at project level, \`keptStacks\`, no longer hand-overs of the first topology,
 * so that the last topology can be deleted too, which an older krt would drop). An
 * older snapshot is migrated, never rebuilt from the spec: it holds state the spec no
 * longer has (kept stacks and what they may hold), so a bump comes with a migration from
 * the version before it (model-snapshot-v1.ts; a version 2 is a version 3 in which no live
 * stack records anything; a version 3 becomes a 4 by \`liftedKeptStacks\`). An absent
 * field must never decide for a guard.
 */
export const SNAPSHOT_VERSION = 4;

export function modelSnapshotFile(model: ProjectModel): GeneratedFile {
  const keptStacks = model.keptStacks && model.keptStacks.length > 0 ? { keptStacks: model.keptStacks.map(keptInSnapshotOrder) } : {};
  const snapshot = { '//': GENERATED_NOTICE, version: SNAPSHOT_VERSION, topologies: model.topologies.map(inSnapshotOrder), ...keptStacks };
  return { path: MODEL_SNAPSHOT_FILE, content: `${JSON.stringify(snapshot, null, 2)}\n` };
}

/** A kept stack's fields in one order, whatever the path that built it (see inSnapshotOrder). */
function keptInSnapshotOrder({ stack, cluster, mayHold }: KeptStack): KeptStack {
  return { stack, cluster: { replicationFactor: cluster.replicationFactor, minInsyncReplicas: cluster.minInsyncReplicas }, ...(mayHold ? { mayHold } : {}) };
}

/**
 * A model of version 3 or before, which carried the stacks of deleted topology files as
 * hand-overs of nothing (\`isKeptStack\`) in the first topology, as the project's kept
 * stacks, each with that topology's cluster settings (the ones its Terraform was generated
 * with, so it stays byte for byte the same).
 */
export function liftedKeptStacks(model: ProjectModel): ProjectModel {
  const keptStacks: KeptStack[] = [];
  const topologies = model.topologies.map((topology) => {
    const kept = (topology.handedOver ?? []).filter(isKeptStack);
    if (kept.length === 0) return topology;
    for (const h of kept) keptStacks.push(h.mayHold ? { stack: h.stack, cluster: topology.cluster, mayHold: h.mayHold } : { stack: h.stack, cluster: topology.cluster });
    const { handedOver, ...rest } = topology;
    const moves = handedOver!.filter((h) => !isKeptStack(h));
    return moves.length > 0 ? { ...rest, handedOver: moves } : rest;
  });
  if (keptStacks.length === 0) return model;
  return { topologies, keptStacks: keptStacks.sort((a, b) => compareStrings(a.stack, b.stack)) };
}

/**
 * A topology with the records that later steps add (hand-overs, what its stacks may still
 * hold) last, in one order: the same model reached by another path (a partial synth starts
 * from the parsed snapshot, a full one from the spec) must give the same text, which
 * \`krt synth --check\` compares byte for byte (found by attack 35).
 */
function inSnapshotOrder(topology: TopologyModel): TopologyModel {
  const { handedOver, mayHold, ...rest } = topology;
  return { ...rest, ...(handedOver ? { handedOver } : {}), ...(mayHold ? { mayHold } : {}) };
}

/** A snapshot krt cannot read: like any other problem with the output folder. */
export class SnapshotError extends OutputFolderError {}

/** A snapshot as read: the model, and the older version it was migrated from. */
export interface ModelSnapshot {
  readonly model: ProjectModel;
  readonly migratedFrom?: number;
}

/**
 * The model of the last synth into `outDir`, or undefined before the first one. A
 * version-1 snapshot is migrated with `sources` (see `migrateFromVersion1`); what cannot
 * be migrated is refused with a way out that keeps every kept stack.
 */
export function readModelSnapshot(outDir: string, sources: MigrationSources = {}): ModelSnapshot | undefined {
  const file = path.join(outDir, MODEL_SNAPSHOT_FILE);
  if (!existsSync(file)) return undefined;
  // Never "delete the output folder and synth again": the snapshot holds what the spec no longer has.
  const restore = `restore it from git (git checkout -- ${file}, or from the branch this one started from: git show main:<output folder>/${MODEL_SNAPSHOT_FILE}), then run this again`;
  let parsed: { version?: unknown; topologies?: unknown };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SnapshotError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): krt judges every spec change against it; give krt the right to read it, and run this again`, { cause: error });
  }
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new SnapshotError(`${file} is not valid JSON: ${restore}`);
  }
  if (parsed.version === 1) return migrated(file, parsed, sources, restore);
  if (parsed.version !== SNAPSHOT_VERSION && parsed.version !== 3 && parsed.version !== 2) {
    if (typeof parsed.version === 'number' && Number.isInteger(parsed.version) && parsed.version > SNAPSHOT_VERSION) {
      throw new SnapshotError(`${file} was written by a newer krt (snapshot version ${parsed.version}), and this krt reads versions 1 to ${SNAPSHOT_VERSION}: run the krt that wrote it, or a newer one (the version the project's package.json pins)`);
    }
    throw new SnapshotError(`${file} has no snapshot version krt knows (${JSON.stringify(parsed.version) ?? 'none'}): ${restore}`);
  }
  const checked = modelSnapshotSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SnapshotError(`${file} is not a model snapshot this krt can read (${issue.path.join('.')}: ${issue.message}), although it says version ${String(parsed.version)}: ${restore}`);
  }
  const topologies = (parsed.topologies as ProjectModel['topologies']).map((t) => ({ ...t, consumers: t.consumers.map(withEveryAlert) }));
  if (parsed.version === SNAPSHOT_VERSION) {
    const keptStacks = (parsed as { keptStacks?: readonly KeptStack[] }).keptStacks;
    return { model: keptStacks && keptStacks.length > 0 ? { topologies, keptStacks } : { topologies } };
  }
  // Version 2 recorded nothing a live stack deleted: what it says holds as a version 3 (see
  // SNAPSHOT_VERSION); and both carried kept stacks in the first topology.
  return { model: liftedKeptStacks({ topologies }), migratedFrom: parsed.version as number };
}

function migrated(file: string, parsed: unknown, sources: MigrationSources, restore: string): ModelSnapshot {
  const checked = modelSnapshotV1Schema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SnapshotError(`${file} says snapshot version 1 but is not one krt can migrate (${issue.path.join('.')}: ${issue.message}): ${restore}`);
  }
  // The raw snapshot, not zod's copy: fields the schema does not name pass, as in version 2.
  const { model: v2, unknownHoldings } = migrateFromVersion1(parsed as ModelSnapshotV1, sources);
  const model = liftedKeptStacks(v2);
  if (unknownHoldings.length > 0) {
    const stacks = unknownHoldings.map((s) => `'${s}'`).join(', ');
    const folders = unknownHoldings.map((s) => `terraform/${s}`).join(', ');
    throw new SnapshotError(
      `${file} was written by an older krt (snapshot version 1), which did not record what the kept ${unknownHoldings.length === 1 ? 'stack' : 'stacks'} ${stacks} of a deleted topology file may still hold in Terraform state, so krt cannot migrate it by itself: \`terraform state list\` in ${folders} under the output folder shows what it holds; once that is empty (apply the kept stack as committed, after checking that no other stack declares those topics), run \`krt synth --applied ${unknownHoldings.join(' ')}\`, which migrates the snapshot and keeps every kept stack`,
    );
  }
  return { model, migratedFrom: 1 };
}

/** The line a command prints when it read a snapshot it migrated. */
export function migrationNotice(shownFile: string, from: number): string {
  // Before version 3 a live stack recorded nothing it deleted: krt cannot know of a removal that older krt synthesized.
  const unknown = from < 3 ? '; a consumer or tier that krt removed and whose stack was not applied since is not known to this krt: apply every stack before declaring such topics elsewhere' : '';
  return `${shownFile} was written by an older krt (snapshot version ${from}): migrated to version ${SNAPSHOT_VERSION}, kept stacks and what they may still hold included; \`krt synth\` writes it as version ${SNAPSHOT_VERSION} (commit it)${unknown}`;
}
