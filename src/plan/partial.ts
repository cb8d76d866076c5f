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
  // Kept only when its file is still there and not named: a file deleted (or moved) counts as
  // deleted, as in a full run, and a named file that says the same name or a previousName of it
  // cannot take it over while its file stands (the rules across files refuse the clash; found
  // by attack 38: a copy of b.ts left named 'b' replaced b and deleted a DLQ b.ts still declares).
  const kept = baseline.topologies.filter((t) => !named.has(t.source.file) && existsSync(path.join(cwd, t.source.file)));
  // The order of a full run: by file (the named files come in the order they were named).
  const topologies = [...model.topologies, ...kept].sort((a, b) => compareStrings(a.source.file, b.source.file));
  if (kept.length === 0) return topologies.every((t, i) => t === model.topologies[i]) ? model : { ...model, topologies };
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
export function acrossFiles(merged: ProjectModel, told: readonly Diagnostic[] = []): Diagnostic[] {
  // Warnings among the named files were told by their compile already.
  const key = (d: Diagnostic) => `${d.severity}\0${d.file}\0${d.path}\0${d.message}`;
  const already = new Set(told.map(key));
  return sortDiagnostics([...checkProject(merged), ...checkMoves(merged.topologies)].filter((d) => !already.has(key(d))));
}
