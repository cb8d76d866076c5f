import nodeModule from 'node:module';
import { cacheCompiledCode } from '../src/cli/compiled-code-cache';

/** Node's compile-cache API where it has one (22.1 and later); absent from Node 20 and its types. */
const compileCache = nodeModule as unknown as { enableCompileCache?: unknown; getCompileCacheDir?: () => string | undefined };
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const nodeHasTheCache = major > 22 || (major === 22 && minor >= 1);

describe('the CLI start-up', () => {
  it("turns Node's cache of compiled code on where Node has one, and does nothing on Node 20", () => {
    expect(typeof compileCache.enableCompileCache === 'function').toBe(nodeHasTheCache);
    expect(() => cacheCompiledCode()).not.toThrow();
    expect(compileCache.getCompileCacheDir?.()).toEqual(nodeHasTheCache && !process.env.NODE_DISABLE_COMPILE_CACHE ? expect.any(String) : undefined);
  });
});
