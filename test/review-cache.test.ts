import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { fingerprintOf, OUTPUT_LIBRARIES } from '../src/cache/fingerprint';
import { fileTree, REPO_ROOT, ScratchProject } from './helpers/project';

/**
 * Review of the synth cache (#27, "fail closed"): each test is a way to make the cached
 * `krt synth --check` say "ok" over output that `--no-cache` calls stale, or the cached
 * synth write other bytes than `--no-cache`. Each failed before the cache was keyed on
 * the model (every topology file loaded on every run) instead of on a prediction of the
 * files a spec reads.
 */
jest.setTimeout(120_000);

/** Runs the loader's `loadTopologyFiles` after a hook: a stand-in for an editor that saves a file while a synth runs. */
const mockBeforeLoad: Array<() => void> = [];
jest.mock('../src/load/load-topologies', () => {
  const actual = jest.requireActual('../src/load/load-topologies');
  return {
    ...actual,
    loadTopologyFiles: (...args: unknown[]) => {
      mockBeforeLoad.splice(0).forEach((hook) => hook());
      return actual.loadTopologyFiles(...args);
    },
  };
});

/** A topology file whose on-call channel comes from `import { onCall } from <from>`. */
function specImporting(name: string, from: string, extra = ''): string {
  return [
    "import { defineTopology } from 'kafka-retry-topology';",
    `import { onCall } from '${from}';`,
    'export default defineTopology({',
    `  name: '${name}',`,
    `  owner: { team: '${name}-team', onCall },`,
    "  runbookBaseUrl: 'https://runbooks.example.com/kafka',",
    '  consumers: [',
    `    { name: '${name}-consumer-0', topic: { name: '${name}.topic-0', partitions: 12 }, principal: 'User:${name}', ladder: ['10s', '1m'], criticality: 'standard' },`,
    extra,
    '  ],',
    '});',
    '',
  ].join('\n');
}


/** The same repository twice: one synthesized with the cache, one with --no-cache. */
class Twins {
  readonly cached = new ScratchProject(false);
  readonly reference = new ScratchProject(false);

  constructor(folders: readonly string[] = ['topologies', 'lib']) {
    for (const p of this.projects) for (const f of folders) mkdirSync(p.path(f), { recursive: true });
  }

  get projects(): ScratchProject[] {
    return [this.cached, this.reference];
  }

  write(file: string, content: string): void {
    for (const p of this.projects) p.write(file, content);
  }

  link(target: string, at: string): void {
    for (const p of this.projects) symlinkSync(target, p.path(at));
  }

  /** `krt synth` in both; both must succeed. */
  async synth(...args: string[]): Promise<void> {
    expect(await this.cached.krt('synth', ...args)).toMatchObject({ code: 0, stderr: '' });
    expect(await this.reference.krt('synth', '--no-cache', ...args)).toMatchObject({ code: 0, stderr: '' });
  }

  /** What `--check` says with the cache and without it, then whether a synth with and without leaves the same files. */
  async expectAgreement(...args: string[]): Promise<void> {
    const withCache = await this.cached.krt('synth', '--check', ...args);
    const without = await this.reference.krt('synth', '--check', '--no-cache', ...args);
    expect({ code: withCache.code, stderr: withCache.stderr }).toEqual({ code: without.code, stderr: without.stderr });
    await this.synth(...args);
    expect(fileTree(this.cached.path('generated'))).toEqual(fileTree(this.reference.path('generated')));
  }

  dispose(): void {
    for (const p of this.projects) p.remove();
  }
}

/**
 * The environment topology files see: the loader runs them in Node's own context, not in
 * jest's sandbox, whose `process.env` is a copy.
 */
const loaderEnv = (vm.runInThisContext('process') as NodeJS.Process).env;

let twins: Twins;
beforeEach(() => {
  twins = new Twins();
});
afterEach(() => {
  twins.dispose();
  delete loaderEnv.KRT_REVIEW_ON_CALL;
});

describe('a helper that reaches outside its text by a route the import scan does not know', () => {
  // Each helper below reads `lib/on-call.txt`, `lib/on-call-data.ts` or the environment, yet no name the scan
  // looks for (process, require, Function, constructor, ...) appears as such in its text.
  it.each([
    [
      '`arguments`: the loader runs a module inside a function whose arguments are require, module, __filename and __dirname',
      "const load = arguments[1];\nexport const onCall = '#' + load('node:fs').readFileSync(arguments[4] + '/on-call.txt', 'utf8').trim();\n",
    ],
    [
      '`jitiImport`: a parameter of the same wrapper, an import of a local module that the scan does not see',
      "const data = await jitiImport('./on-call-data');\nexport const onCall = '#' + data.onCall;\n",
    ],
    [
      'a template literal: `constructor` and an escaped `process` in backquotes, where only quoted strings are checked',
      'const F = (() => 0)[`constructor`] as (body: string) => () => string;\nexport const onCall = \'#\' + F(`return pro\\u0063ess.env.KRT_REVIEW_ON_CALL`)();\n',
    ],
    [
      'a name built at run time: `"con" + "structor"`',
      "const c = 'con' + 'structor';\nconst F = (() => 0)[c] as (body: string) => () => string;\nexport const onCall = '#' + F('return pro' + 'cess.env.KRT_REVIEW_ON_CALL')();\n",
    ],
  ])('%s', async (_route, helper) => {
    twins.write('topologies/a.ts', specImporting('a', '../lib/on-call'));
    twins.write('lib/on-call.ts', helper);
    twins.write('lib/on-call.txt', 'alpha\n');
    twins.write('lib/on-call-data.ts', "export const onCall = 'alpha';\n");
    loaderEnv.KRT_REVIEW_ON_CALL = 'alpha';
    await twins.synth();
    expect(twins.cached.read('generated/runbooks/a-consumer-0.md')).toContain('#alpha');

    twins.write('lib/on-call.txt', 'beta\n');
    twins.write('lib/on-call-data.ts', "export const onCall = 'beta';\n");
    loaderEnv.KRT_REVIEW_ON_CALL = 'beta';
    await twins.expectAgreement();
  });
});

describe('topology files that share state', () => {
  // All topology files of a run are loaded in one realm by one loader: what one file leaves
  // on a built-in object (Math, Array.prototype, JSON, a Symbol.for key), or on a JSON
  // module (the loader gives every importer the same object despite moduleCache: false),
  // is seen by the files loaded after it, as through globalThis. b.ts's key holds only
  // b.ts and the modules it imports, so it is reused with what a.ts left there last time.
  it.each([
    [
      'a property of Math',
      "(Math as unknown as { krtOnCall?: string }).krtOnCall = '#VALUE';\nexport const onCall = '#a';\n",
      "export const onCall = (Math as unknown as { krtOnCall?: string }).krtOnCall ?? '#none';\n",
    ],
    [
      'the object of a JSON module both import',
      "import data from './data.json';\n(data as { onCall: string }).onCall = '#VALUE';\nexport const onCall = '#a';\n",
      "import data from './data.json';\nexport const onCall = data.onCall;\n",
    ],
  ])('reloads a topology that reads what another file left on %s, when that file changes', async (_where, sets, reads) => {
    twins.write('topologies/a.ts', specImporting('a', '../lib/sets'));
    twins.write('topologies/b.ts', specImporting('b', '../lib/reads'));
    twins.write('lib/data.json', '{ "onCall": "#none" }\n');
    twins.write('lib/sets.ts', sets.replace('VALUE', 'alpha'));
    twins.write('lib/reads.ts', reads);
    await twins.synth();
    expect(twins.cached.read('generated/runbooks/b-consumer-0.md')).toContain('#alpha');

    twins.write('lib/sets.ts', sets.replace('VALUE', 'beta'));
    await twins.expectAgreement();
  });
});

describe('a topology file that is a symbolic link', () => {
  it('is keyed on the helpers the loader reads, which it resolves from the link, not from the linked file', async () => {
    // topologies/a.ts -> ../specs/team/a.ts, which imports '../lib/on-call': the loader reads lib/on-call.ts
    // (beside topologies/), the key hashes specs/lib/on-call.ts (beside the real file).
    for (const p of twins.projects) mkdirSync(p.path('specs/team'), { recursive: true }), mkdirSync(p.path('specs/lib'));
    twins.write('specs/team/a.ts', specImporting('a', '../lib/on-call'));
    twins.write('specs/lib/on-call.ts', "export const onCall = '#beside-the-real-file';\n");
    twins.write('lib/on-call.ts', "export const onCall = '#beside-the-link';\n");
    twins.link('../specs/team/a.ts', 'topologies/a.ts');
    await twins.synth();
    expect(twins.cached.read('generated/runbooks/a-consumer-0.md')).toContain('#beside-the-link');

    twins.write('lib/on-call.ts', "export const onCall = '#beside-the-link-2';\n");
    await twins.expectAgreement();
  });
});

describe("an import through krt's own package name", () => {
  it('is keyed on the file it leads to when `..` takes it out of krt (the key skips any specifier that starts with the name)', async () => {
    // The loader maps 'kafka-retry-topology' to krt's index by an alias, and an alias is a
    // prefix: 'kafka-retry-topology/../../x' is a path from there, to any file.
    const through = (p: ScratchProject) => `kafka-retry-topology/${path.relative(path.join(REPO_ROOT, 'src', 'index'), p.path('lib/on-call'))}`;
    for (const p of twins.projects) p.write('topologies/a.ts', specImporting('a', through(p)));
    twins.write('lib/on-call.ts', "export const onCall = '#alpha';\n");
    await twins.synth();
    expect(twins.cached.read('generated/runbooks/a-consumer-0.md')).toContain('#alpha');

    twins.write('lib/on-call.ts', "export const onCall = '#beta';\n");
    await twins.expectAgreement();
  });
});

describe('a model changed by another file', () => {
  it('forgets the hand-over of a moved consumer once previousTopology is removed, as the docs tell users to do after the apply', async () => {
    const consumer = (name: string, extra = '') =>
      `    { name: '${name}', ${extra}topic: { name: '${name}.topic', partitions: 12 }, principal: 'User:${name}', ladder: ['10s', '1m'], criticality: 'standard' },`;
    const spec = (name: string, consumers: string[]) =>
      ["import { defineTopology } from 'kafka-retry-topology';", "import { onCall } from '../lib/on-call';", 'export default defineTopology({', `  name: '${name}',`, `  owner: { team: '${name}-team', onCall },`, "  runbookBaseUrl: 'https://runbooks.example.com/kafka',", '  consumers: [', ...consumers, '  ],', '});', ''].join('\n');
    twins.write('lib/on-call.ts', "export const onCall = '#ops';\n");
    twins.write('topologies/x.ts', spec('x', [consumer('x-stays'), consumer('x-moves')]));
    twins.write('topologies/y.ts', spec('y', [consumer('y-own')]));
    await twins.synth();

    // Move x-moves to y with its records: x's stack forgets its topics (removed blocks).
    twins.write('topologies/x.ts', spec('x', [consumer('x-stays')]));
    twins.write('topologies/y.ts', spec('y', [consumer('y-own'), consumer('x-moves', "previousTopology: 'x', ")]));
    await twins.synth();
    expect(twins.cached.read('generated/terraform/x/cdk.tf.json')).toContain('"removed"');

    // Applied, and said so; the declaration goes. x.ts is unchanged, but its model depended on y.ts.
    twins.write('topologies/y.ts', spec('y', [consumer('y-own'), consumer('x-moves')]));
    await twins.expectAgreement('--applied', 'x');
  });
});

describe('a topology file saved while a synth runs', () => {
  it('does not leave the key of the text krt hashed pointing at the model of the text the loader read', async () => {
    const project = twins.cached;
    project.write('lib/on-call.ts', "export const onCall = '#ops';\n");
    const version = (onCall: string) => specImporting('a', '../lib/on-call').replace('owner: { team: \'a-team\', onCall }', `owner: { team: 'a-team', onCall: '#${onCall}' }`);
    project.write('topologies/a.ts', version('one'));
    expect(await project.krt('synth')).toMatchObject({ code: 0 });

    // The key is taken of 'two'; the editor saves 'three' before the loader reads the file.
    project.write('topologies/a.ts', version('two'));
    mockBeforeLoad.push(() => project.write('topologies/a.ts', version('three')));
    expect(await project.krt('synth')).toMatchObject({ code: 0 });
    expect(project.read('generated/runbooks/a-consumer-0.md')).toContain('#three');

    // Undo back to 'two': generated/ holds 'three', so --check must not say ok.
    project.write('topologies/a.ts', version('two'));
    const withCache = await project.krt('synth', '--check');
    const without = await project.krt('synth', '--check', '--no-cache');
    expect(without.code).toBe(1);
    expect({ code: withCache.code, stderr: withCache.stderr }).toEqual({ code: without.code, stderr: without.stderr });
  });
});

describe("krt's fingerprint", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'krt-review-fp-'));
    mkdirSync(path.join(dir, 'code'));
    mkdirSync(path.join(dir, 'templates', 'runbook'), { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), '{"version":"0.1.0"}');
    writeFileSync(path.join(dir, 'code', 'index.js'), 'module.exports = 1;\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('changes when a runbook template that is a symbolic link is edited (the emitter reads through the link)', () => {
    mkdirSync(path.join(dir, 'shared'));
    writeFileSync(path.join(dir, 'shared', 'page.md.hbs'), '# {{name}}\n');
    symlinkSync(path.join('..', '..', 'shared', 'page.md.hbs'), path.join(dir, 'templates', 'runbook', 'page.md.hbs'));
    const sources = { packageJson: path.join(dir, 'package.json'), codeDir: path.join(dir, 'code'), templatesDir: path.join(dir, 'templates') };
    const before = fingerprintOf(sources);
    writeFileSync(path.join(dir, 'shared', 'page.md.hbs'), '# {{name}} (edited)\n');
    expect(before).toBeDefined();
    expect(fingerprintOf(sources)).not.toBe(before);
  });

  it('changes when an output library is patched in place without a new version (patch-package, a linked checkout)', () => {
    // Libraries as Node finds them from `app/`: each with a package.json and its code.
    for (const name of OUTPUT_LIBRARIES) {
      const folder = path.join(dir, 'node_modules', name);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
      writeFileSync(path.join(folder, 'index.js'), 'module.exports = "v1";\n');
    }
    mkdirSync(path.join(dir, 'app'));
    const sources = {
      packageJson: path.join(dir, 'package.json'),
      codeDir: path.join(dir, 'code'),
      templatesDir: path.join(dir, 'templates'),
      resolveFrom: path.join(dir, 'app', 'index.js'),
    };
    const before = fingerprintOf(sources);
    expect(before).toBeDefined();
    writeFileSync(path.join(dir, 'node_modules', 'handlebars', 'index.js'), 'module.exports = "patched";\n');
    expect(fingerprintOf(sources)).not.toBe(before);
  });
});
