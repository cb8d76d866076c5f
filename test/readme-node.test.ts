import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';

jest.setTimeout(600_000);

// npm's own reading of a version range, as it reads `engines`.
const semver: { satisfies(version: string, range: string): boolean; intersects(a: string, b: string): boolean } = require('semver');
const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const matrix = path.join(REPO_ROOT, 'scripts', 'tools', 'node-matrix.sh');

/** What each jest config runs, in the README's words. */
const SCOPE: Record<string, string> = { 'jest.config.js': 'every suite', 'jest.runtime.config.js': 'the runtime suites' };

/** The matrix as npm test runs it: the Node binaries installed, each asked its version. */
function plan(): { line: string; version: string; config: string }[] {
  const out = execFileSync('bash', [matrix, '--plan'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.trim().split('\n').map((row) => {
    const [line, version, config] = row.split(' ') as [string, string, string];
    return { line, version, config };
  });
}

/** The test files a jest config selects, relative to the repository. */
function listTests(config: string): string[] {
  const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', config, '--listTests'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return out.trim().split('\n').map((file) => path.relative(REPO_ROOT, file)).sort();
}

describe('the Node lines', () => {
  const lines = plan();

  it('are what npm test runs after the type check and the build (no suite rebuilds dist/ under the others)', () => {
    expect(packageJson.scripts.test).toBe('npm run typecheck && npm run build && bash scripts/tools/node-matrix.sh');
    expect(lines.map((l) => l.line)).toEqual(['24', '26', '22', '20']);
  });

  it('are the ones the README states, on the versions it states, each running what it states', () => {
    const rows = readme.split('\n').filter((row) => /^\s*\| \d+ \| [\d.]+ \| /.test(row));
    const stated = rows.map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
    expect(stated).toEqual(lines.map(({ line, version, config }) => [line, version.replace(/^v/, ''), SCOPE[config] === 'every suite' ? 'every suite' : 'the runtime suites (`test/runtime`)']));
  });

  it('are the ones package.json engines accepts, and no other', () => {
    const engines: string = packageJson.engines.node;
    const accepted = Array.from({ length: 20 }, (_, i) => 14 + i).filter((major) => semver.intersects(engines, `${major}.x`));
    expect(accepted.map(String)).toEqual(lines.map((l) => l.line).sort());
    for (const { version } of lines) expect(semver.satisfies(version, engines)).toBe(true);
  });

  it('run every suite on one line, and exactly the runtime suites on the others', () => {
    const all = listTests('jest.config.js');
    const runtime = listTests('jest.runtime.config.js');
    expect(all.some((file) => file.startsWith('test/kafka/'))).toBe(true);
    expect(runtime.length).toBeGreaterThan(10);
    expect(runtime).toEqual(all.filter((file) => file.startsWith('test/runtime/')));
    expect(lines.filter((l) => l.config === 'jest.config.js')).toHaveLength(1);
  });

  it('each run jest on that very Node: a suite there checks the Node it runs on', () => {
    const out = execFileSync('bash', [matrix, 'test/runtime/node-line.test.ts'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const results = out.trim().split('\n').slice(-lines.length - 1);
    expect(results).toEqual([...lines.map(({ version, config }) => `Node ${version}, ${SCOPE[config]}: 1 passed, 0 failed`), `All Node lines: ${lines.length} passed, 0 failed`]);
  });
});
