import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loaderFingerprint } from '../src/cache/fingerprint';
import { TRANSPILE_DIR } from '../src/cache/synth-cache';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * The loader's transpile cache (jiti's fsCache) finds an entry by the file's path and a
 * hash of its source text, with a constant format tag: nothing ties it to the jiti that
 * compiled it. After a loader upgrade whose transform changed, `krt synth` would run the
 * specs as the old jiti compiled them while `--no-cache` runs them as the new one does
 * (finding f5e04c7). The cache now lives in a folder keyed on the loader (jiti's version
 * and files, Node, the options), and the folders of other loaders are removed. The test
 * stands in for an old jiti's entry by rewriting one entry's code (keeping the trailer
 * jiti checks) and moving it to another loader's folder.
 */
describe('a transpiled topology that another version of the loader wrote', () => {
  let project: ScratchProject;
  beforeEach(async () => {
    project = new ScratchProject();
    expect((await project.krt('synth')).code).toBe(0);
    const root = project.path(TRANSPILE_DIR);
    const [current] = readdirSync(root);
    const dir = path.join(root, current!);
    const entry = path.join(dir, readdirSync(dir).find((name) => name.startsWith('topologies-orders.'))!);
    const text = readFileSync(entry, 'utf8');
    const trailer = text.slice(text.lastIndexOf(' /* v'));
    expect(trailer).toMatch(/^ \/\* v\d+-[0-9a-f]+ \*\/\n?$/);
    // The same source, compiled differently: what the spec's code does is no longer what it says.
    writeFileSync(entry, `${text.slice(0, text.lastIndexOf(' /* v')).replace("criticality: 'money'", "criticality: 'standard'")}${trailer}`);
    renameSync(dir, path.join(root, 'an-older-loader'));
  });
  afterEach(() => project.remove());

  it('gives the same answer to krt synth --check with and without the cache', async () => {
    const cached = await project.krt('synth', '--check');
    const fresh = await project.krt('synth', '--check', '--no-cache');
    expect(fresh.code).toBe(0);
    expect(cached.code).toBe(fresh.code);
    expect(existsSync(project.path(path.join(TRANSPILE_DIR, 'an-older-loader')))).toBe(false);
  });

  it('is not used once the topology file changes (the source text is in the key too)', async () => {
    project.edit('topologies/orders.ts', "onCall: '#billing-oncall'", "onCall: '#billing-oncall' ");
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });
});

describe('the key of the loader\'s cache', () => {
  const fakeJiti = (version: string) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'krt-loader-key-'));
    mkdirSync(path.join(root, 'node_modules', 'jiti'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', 'jiti', 'package.json'), JSON.stringify({ name: 'jiti', version }));
    writeFileSync(path.join(root, 'node_modules', 'jiti', 'index.js'), `module.exports = '${version}';`);
    return path.join(root, 'app.js');
  };

  it('changes with the version of jiti installed, and with the loader options', () => {
    const [old, current] = [fakeJiti('2.4.0'), fakeJiti('2.5.1')];
    expect(loaderFingerprint('{}', old)).not.toBe(loaderFingerprint('{}', current));
    expect(loaderFingerprint('{}', current)).not.toBe(loaderFingerprint('{"interopDefault":true}', current));
  });

  it('is unknown, so nothing is cached, when jiti cannot be found', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'krt-loader-key-'));
    expect(loaderFingerprint('{}', path.join(root, 'app.js'))).toBeUndefined();
  });
});
