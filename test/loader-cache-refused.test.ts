import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTopologyFiles } from '../src/load/load-topologies';
import { REPO_ROOT } from './helpers/project';

/*
 * The loader's cache of compiled topology files may only make a run slower, never fail it:
 * a cache folder that cannot be written (a full disk, another user's folder, a file where
 * the folder goes) was reported as an error of the topology file, or ended krt synth --check
 * in an internal error (found by the attack of session 55).
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'krt-loader-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('loads the topology files when a file stands where the cache folder goes', async () => {
  const cache = path.join(dir, 'loader');
  writeFileSync(cache, 'not a folder\n');
  const file = path.join(REPO_ROOT, 'topologies', 'orders.ts');
  const { loaded, diagnostics } = await loadTopologyFiles([file], REPO_ROOT, { transpileCache: cache });
  expect(diagnostics).toEqual([]);
  expect(loaded.map((l) => l.file)).toEqual([path.join('topologies', 'orders.ts')]);
});
