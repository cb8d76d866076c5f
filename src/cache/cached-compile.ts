import path from 'node:path';
import { combineTopologies, compileTopologyFile, NO_TOPOLOGY_FILES } from '../compile';
import type { CompiledFile, CompileResult } from '../compile';
import { loadTopologyFiles } from '../load/load-topologies';
import { hasErrors, sortDiagnostics } from '../validate/diagnostic';
import type { CacheEntry, SynthCache } from './synth-cache';
import { sourceKey } from './source-key';

/** A compile that took unchanged files' models from the cache instead of loading them. */
export interface CachedCompileResult extends CompileResult {
  /** Every topology file compiled, by its path as shown (relative to the working directory). */
  readonly files: ReadonlyMap<string, CompiledFileInfo>;
}

export interface CompiledFileInfo {
  readonly compiled: CompiledFile;
  /** The file's source key; undefined when it must be loaded every time. */
  readonly source?: string;
  /** The cache entry its model came from, when the file was not loaded. */
  readonly cached?: CacheEntry;
}

/**
 * Like `compileFiles`, but a file whose source key is in the cache is not loaded: its
 * model and warnings come from the cache. The rules across files always run on every
 * topology, so a name that collides with an unchanged file is still reported.
 * `mustLoad` names files to load whatever the cache says.
 */
export async function compileWithCache(
  files: readonly string[],
  cwd: string,
  cache: SynthCache,
  mustLoad: ReadonlySet<string> = new Set(),
): Promise<CachedCompileResult> {
  if (files.length === 0) return { diagnostics: [NO_TOPOLOGY_FILES], files: new Map() };
  const bySource = new Map(cache.entries.flatMap((e) => (e.source ? [[e.source, e] as const] : [])));
  const plan = files.map((absolute) => {
    const file = path.relative(cwd, absolute) || absolute;
    const source = sourceKey(absolute, `${cache.fingerprint}\0${file}`);
    const cached = source !== undefined && !mustLoad.has(file) ? bySource.get(source) : undefined;
    return { absolute, file, source, cached };
  });
  const { loaded, diagnostics } = await loadTopologyFiles(
    plan.filter((p) => !p.cached).map((p) => p.absolute),
    cwd,
  );
  const exports = new Map(loaded.map((l) => [l.file, l.exported]));
  const compiled = new Map<string, CompiledFileInfo>();
  for (const { file, source, cached } of plan) {
    if (cached) {
      compiled.set(file, { compiled: { file, topology: cached.topology, settled: cached.topology, diagnostics: cached.diagnostics }, source, cached });
    } else if (exports.has(file)) {
      compiled.set(file, { compiled: compileTopologyFile(file, exports.get(file)), source });
    }
  }
  const result = combineTopologies([...compiled.values()].map((c) => c.compiled));
  const all = sortDiagnostics([...diagnostics, ...result.diagnostics]);
  return hasErrors(all) ? { diagnostics: all, files: compiled } : { ...result, diagnostics: all, files: compiled };
}
