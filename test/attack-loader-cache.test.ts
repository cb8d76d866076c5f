import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TRANSPILE_DIR } from '../src/cache/synth-cache';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * Attack on the synth cache's fourth door: the loader's transpile cache
 * (src/synth/synthesize.ts passes TRANSPILE_DIR to jiti's fsCache). The synth cache keys
 * every record on krt's fingerprint, which lists jiti among the libraries that shape the
 * output (src/cache/fingerprint.ts OUTPUT_LIBRARIES) because the loader runs the specs.
 * But jiti's own cache entries, in a folder that no fingerprint names, are found by the
 * file's path and a hash of its source text, with a constant format tag (jiti's "v9"):
 * nothing ties an entry to the jiti version or the Babel transform that wrote it. After
 * an upgrade of jiti whose transform of the same TypeScript changed (a fixed Babel bug, a
 * new interop), `krt synth` keeps running the specs as the old jiti compiled them, while
 * `--no-cache` (no transpile cache) runs them as the new one does: the two disagree, and
 * `krt synth --check` vouches for output that a fresh clone would not produce. The test
 * stands in for the old jiti by rewriting the entry's code and keeping its trailer, which
 * is exactly what jiti checks.
 */
describe('a transpiled topology that another version of the loader wrote', () => {
  let project: ScratchProject;
  beforeEach(async () => {
    project = new ScratchProject();
    expect((await project.krt('synth')).code).toBe(0);
    const dir = project.path(TRANSPILE_DIR);
    const entry = path.join(dir, readdirSync(dir).find((name) => name.startsWith('topologies-orders.'))!);
    const text = readFileSync(entry, 'utf8');
    const trailer = text.slice(text.lastIndexOf(' /* v'));
    expect(trailer).toMatch(/^ \/\* v\d+-[0-9a-f]+ \*\/\n?$/);
    // The same source, compiled differently: what the spec's code does is no longer what it says.
    writeFileSync(entry, `${text.slice(0, text.lastIndexOf(' /* v')).replace("criticality: 'money'", "criticality: 'standard'")}${trailer}`);
  });
  afterEach(() => project.remove());

  // Defect: the transpile cache outlives a change of the loader; only the source text keys it.
  it.failing('gives the same answer to krt synth --check with and without the cache', async () => {
    const cached = await project.krt('synth', '--check');
    const fresh = await project.krt('synth', '--check', '--no-cache');
    expect(fresh.code).toBe(0);
    expect(cached.code).toBe(fresh.code);
  });

  it('is not used once the topology file changes (held: the source text is in the key)', async () => {
    project.edit('topologies/orders.ts', "onCall: '#billing-oncall'", "onCall: '#billing-oncall' ");
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });
});
