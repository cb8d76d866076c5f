import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalJson } from './helpers/canonical-json';
import { REPO_ROOT } from './helpers/project';
import { prepareTools } from './helpers/tools';

jest.setTimeout(180_000);

/** The stack as `cdktf synth` writes it, less the local state path cdktf adds for `cdktf deploy`. */
function stackFrom(outDir: string, topology: string): unknown {
  const json = JSON.parse(readFileSync(path.join(outDir, 'stacks', topology, 'cdk.tf.json'), 'utf8'));
  expect(json.terraform.backend.local.path).toMatch(new RegExp(`terraform\\.${topology}\\.tfstate$`));
  delete json.terraform.backend;
  return canonicalJson(json);
}

describe('cdktf synth through cdktf.json', () => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'krt-cdktf-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  beforeAll(async () => {
    // cdktf-cli loads its pseudo-terminal addon at start, which has no prebuilt binary for every Node line.
    await prepareTools(['scripts/tools/node-pty.sh']);
    // cdktf.json runs `npx krt cdktf`, which is the built CLI. `npm test` builds it before any
    // suite runs; a build here (rm -rf dist, then tsc) pulled dist/ from under the suites that
    // run it beside this one (synth-cache.test.ts failed a fresh-clone CI so, in session 40).
    if (!existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/cli/main.js is missing: run `npm run build` (npm test builds it first)');
    execFileSync('npx', ['cdktf', 'synth', '--output', outDir], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
      env: { ...process.env, CHECKPOINT_DISABLE: '1', CDKTF_DISABLE_TELEMETRY: '1', CI: '1' },
    });
  });

  it.each(['orders', 'analytics'])('builds the %s stack exactly as krt synth does', (topology) => {
    const committed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'generated', 'terraform', topology, 'cdk.tf.json'), 'utf8'));
    expect(stackFrom(outDir, topology)).toEqual(canonicalJson(committed));
  });
});
