import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { emitGrafana } from './grafana';
import { emitPrometheus } from './prometheus';
import { emitRouter } from './router';
import { emitRunbooks } from './runbook';
import { emitTerraform } from './terraform';
import type { Emitter, GeneratedFile } from './types';

export type { Emitter, GeneratedFile } from './types';

/** Every emitter, in the order their files are listed. */
const EMITTERS: readonly Emitter[] = [emitTerraform, emitPrometheus, emitRunbooks, emitRouter, emitGrafana];

/** All generated files, sorted by path; an empty or doubled path is a bug, not an output. */
export function emitAll(model: ProjectModel): GeneratedFile[] {
  const files = EMITTERS.flatMap((emit) => emit(model)).sort((a, b) => compareStrings(a.path, b.path));
  if (files.length === 0) throw new Error('the emitters produced no files; a topology with consumers always yields some');
  files.forEach((file, i) => {
    if (i > 0 && files[i - 1]!.path === file.path) throw new Error(`two emitters produced ${file.path}`);
  });
  return files;
}
