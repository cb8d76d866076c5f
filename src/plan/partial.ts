import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkMoves, handOverMoves } from '../model/hand-over';
import type { ProjectModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import type { Diagnostic } from '../validate/diagnostic';
import { sortDiagnostics } from '../validate/diagnostic';
import { checkProject } from '../validate/project-rules';

/**
 * The model of a synth or plan of some topology files only (`krt synth topologies/a.ts`):
 * the topologies of the other files stay exactly as the committed model has them, so
 * their stacks, outputs and snapshot parts are untouched and only the named files are
 * judged. Without this a partial run takes every other topology for deleted.
 */
export function withUntouched(baseline: ProjectModel | undefined, model: ProjectModel, files: readonly string[], cwd: string): ProjectModel {
  if (!baseline) return model;
  const named = new Set(files.map((f) => path.relative(cwd, f).split(path.sep).join('/')));
  const renamed = new Set(model.topologies.flatMap((t) => (t.previousName ? [t.previousName] : [])));
  // A previousName takes a topology over only when its file is gone (renamed with it): one whose file is still there stays, and the rules below refuse the clash.
  const taken = (t: ProjectModel['topologies'][number]) => model.topologies.some((m) => m.name === t.name) || (renamed.has(t.name) && !existsSync(path.join(cwd, t.source.file)));
  const kept = baseline.topologies.filter((t) => !named.has(t.source.file) && !taken(t));
  if (kept.length === 0) return model;
  // The order of a full run: by file.
  const topologies = [...model.topologies, ...kept].sort((a, b) => compareStrings(a.source.file, b.source.file));
  // What moved across files is worked out again on the whole: the named files alone cannot
  // tell a kept topology that a consumer left it, nor the other way round (found by attack
  // 37). The kept stacks and what stacks may hold are added again after (withRemovedStacks).
  return { ...model, topologies: handOverMoves(topologies.map(withoutHandOvers)) };
}

function withoutHandOvers(topology: TopologyModel): TopologyModel {
  if (topology.handedOver === undefined) return topology;
  const { handedOver: _, ...rest } = topology;
  return rest;
}

/**
 * The rules across topology files, on a partial run's model: the files named were compiled
 * alone, so a clash with a topology kept as committed (a consumer name, a main topic read
 * with other partitions, a previousName naming a topology that stays) was never looked
 * for, and a partial synth wrote what a full one refuses (found by attack 36).
 */
export function acrossFiles(merged: ProjectModel): Diagnostic[] {
  return sortDiagnostics([...checkProject(merged), ...checkMoves(merged.topologies)]);
}
