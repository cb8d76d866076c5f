import nodeModule from 'node:module';

/** `module.enableCompileCache`, which Node 22.1 added and Node 20 lacks (its types too). */
type EnableCompileCache = (directory?: string) => unknown;

/**
 * Lets V8 keep the code it compiles for krt's modules and their dependencies (cdktf, the
 * Grafana SDK, zod, ...) on disk and reuse it in the next run: compiling them is a
 * third of a short `krt synth` (docs/benchmarks.md). Node checks each entry against the
 * source it was compiled from, so a changed file is compiled again. Node's own switches
 * stand: `NODE_COMPILE_CACHE` chooses the folder, `NODE_DISABLE_COMPILE_CACHE=1` turns it
 * off. Only modules loaded after this call are cached, so the CLI calls it first.
 * On Node 20 it does nothing.
 */
export function cacheCompiledCode(): void {
  const enable = (nodeModule as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  enable?.();
}
