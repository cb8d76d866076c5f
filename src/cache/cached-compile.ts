import { createHash } from 'node:crypto';
import path from 'node:path';
import { combineTopologies, compileTopologyFile, NO_TOPOLOGY_FILES } from '../compile';
import type { CompiledFile, CompileResult } from '../compile';
import { loadTopologyFiles } from '../load/load-topologies';
import { hasErrors, sortDiagnostics } from '../validate/diagnostic';
import { scanImports } from './import-scan';
import { sourceKey } from './source-key';
import type { ImportScanner } from './source-key';
import type { CacheEntry, SynthCache } from './synth-cache';

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

/** The import scan, remembered by the text it read: a file parsed once is not parsed again while its text is unchanged. */
function rememberedScan(cache: SynthCache): ImportScanner {
  return (text, file) => {
    const key = createHash('sha256').update(`${cache.fingerprint}\0${path.extname(file)}\0${text}`).digest('hex');
    const known = cache.get('scan', key);
    if (known) return known.imports ?? undefined;
    const imports = scanImports(text, file);
    cache.put('scan', key, { imports: imports ?? null });
    return imports;
  };
}

/** The cache entry of a file whose source key the cache knows, with the model that key led to. */
function entryOf(cache: SynthCache, source: string): CacheEntry | undefined {
  const record = cache.get('source', source);
  const model = record && cache.get('model', record.model);
  return record && model ? { source, model: record.model, topology: model.topology, diagnostics: record.diagnostics, outputs: model.outputs } : undefined;
}

/**
 * Like `compileFiles`, but a file whose source key is in the cache is not loaded: its
 * model and warnings come from the cache. The rules across files always run on every
 * topology, so a name that collides with an unchanged file is still reported.
 * `mustLoad` names files to load whatever the cache says. Without a cache every file is loaded.
 */
export async function compileWithCache(
  files: readonly string[],
  cwd: string,
  cache: SynthCache | undefined,
  mustLoad: ReadonlySet<string> = new Set(),
): Promise<CachedCompileResult> {
  if (files.length === 0) return { diagnostics: [NO_TOPOLOGY_FILES], files: new Map() };
  const scan = cache && rememberedScan(cache);
  const plan = files.map((absolute) => {
    const file = path.relative(cwd, absolute) || absolute;
    const source = cache && sourceKey(absolute, `${cache.fingerprint}\0${file}`, scan);
    const cached = cache && source !== undefined && !mustLoad.has(file) ? entryOf(cache, source) : undefined;
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
