import type { ProjectModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { emitGrafana } from './grafana';
import { emitPrometheus } from './prometheus';
import { emitRouter } from './router';
import { emitRunbookIndex, emitRunbookPages } from './runbook';
import { emitTerraform } from './terraform';
import type { Emitter, GeneratedFile } from './types';

export type { Emitter, GeneratedFile } from './types';

/** The emitters whose files each depend on one topology alone, in the order their files are listed. */
const TOPOLOGY_EMITTERS: readonly Emitter[] = [emitTerraform, emitPrometheus, emitRunbookPages, emitRouter, emitGrafana];

/** The emitters whose files read every topology. */
const PROJECT_EMITTERS: readonly Emitter[] = [emitRunbookIndex];

/**
 * The files of one topology, an emitter at a time, so that a caller can write and drop
 * each emitter's files before the next one builds its own.
 */
export function* emitTopology(topology: TopologyModel): Generator<GeneratedFile[]> {
  const model: ProjectModel = { topologies: [topology] };
  for (const emit of TOPOLOGY_EMITTERS) yield emit(model);
}

/** The files that list or read every topology (the runbook index). */
export function emitProjectFiles(model: ProjectModel): GeneratedFile[] {
  return PROJECT_EMITTERS.flatMap((emit) => emit(model));
}

/** All generated files, sorted by path; an empty or doubled path is a bug, not an output. */
export function emitAll(model: ProjectModel): GeneratedFile[] {
  const perTopology = model.topologies.flatMap((topology) => [...emitTopology(topology)].flat());
  const files = [...perTopology, ...emitProjectFiles(model)].sort((a, b) => compareStrings(a.path, b.path));
  if (files.length === 0) throw new Error('the emitters produced no files; a topology with consumers always yields some');
  files.forEach((file, i) => {
    if (i > 0 && files[i - 1]!.path === file.path) throw new Error(`two emitters produced ${file.path}`);
  });
  return files;
}
