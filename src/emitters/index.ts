import type { ProjectModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { emitGrafana } from './grafana';
import { prometheusFiles } from './prometheus';
import { emitRouter } from './router';
import { emitRunbookIndex, emitRunbookPages } from './runbook';
import { emitKeptStacks, emitTerraform } from './terraform';
import type { Emitter, GeneratedFile } from './types';
import { DefectError } from '../runtime/krt-error';

export type { Emitter, GeneratedFile } from './types';

const alone = (emit: Emitter) => (topology: TopologyModel) => emit({ topologies: [topology] });

/** The emitters whose files each depend on one topology alone. */
const TOPOLOGY_EMITTERS: readonly ((topology: TopologyModel) => Iterable<GeneratedFile>)[] = [
  alone(emitTerraform),
  prometheusFiles,
  alone(emitRunbookPages),
  alone(emitRouter),
  alone(emitGrafana),
];

/** The emitters whose files read every topology, or the project itself (the kept stacks of deleted topology files). */
const PROJECT_EMITTERS: readonly Emitter[] = [emitRunbookIndex, emitKeptStacks];

/**
 * The files of one topology, as they are produced, so that a caller can write and drop
 * each before the next ones are built (an emitter at a time, the big Prometheus files
 * one at a time).
 */
export function* emitTopology(topology: TopologyModel): Generator<GeneratedFile> {
  for (const emit of TOPOLOGY_EMITTERS) yield* emit(topology);
}

/** The files that list or read every topology (the runbook index), and the kept stacks. */
export function emitProjectFiles(model: ProjectModel): GeneratedFile[] {
  return PROJECT_EMITTERS.flatMap((emit) => emit(model));
}

/** All generated files, sorted by path; an empty or doubled path is a bug, not an output. */
export function emitAll(model: ProjectModel): GeneratedFile[] {
  const perTopology = model.topologies.flatMap((topology) => [...emitTopology(topology)]);
  const files = [...perTopology, ...emitProjectFiles(model)].sort((a, b) => compareStrings(a.path, b.path));
  if (files.length === 0) throw new DefectError('the emitters produced no files; the runbook index is always one');
  files.forEach((file, i) => {
    if (i > 0 && files[i - 1]!.path === file.path) throw new DefectError(`two emitters produced ${file.path}`);
  });
  return files;
}
