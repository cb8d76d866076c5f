import path from 'node:path';
import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';

/**
 * The model of a synth or plan of some topology files only (`krt synth topologies/a.ts`):
 * the topologies of the other files stay exactly as the committed model has them, so
 * their stacks, outputs and snapshot parts are untouched and only the named files are
 * judged. Without this a partial run takes every other topology for deleted.
 */
export function withUntouched(baseline: ProjectModel | undefined, model: ProjectModel, files: readonly string[], cwd: string): ProjectModel {
  if (!baseline) return model;
  const named = new Set(files.map((f) => path.relative(cwd, f).split(path.sep).join('/')));
  const taken = new Set(model.topologies.flatMap((t) => [t.name, ...(t.previousName ? [t.previousName] : [])]));
  const kept = baseline.topologies.filter((t) => !named.has(t.source.file) && !taken.has(t.name));
  if (kept.length === 0) return model;
  // The order of a full run: by file.
  const topologies = [...model.topologies, ...kept].sort((a, b) => compareStrings(a.source.file, b.source.file));
  return { ...model, topologies };
}
