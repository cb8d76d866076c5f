import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createJiti } from 'jiti';
import { sourceKey } from '../src/cache/source-key';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'krt-source-key-'));
  mkdirSync(path.join(dir, 'topologies'));
  mkdirSync(path.join(dir, 'lib'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = "import { defineTopology } from 'kafka-retry-topology';\n";

/** The key of a topology file whose body is `body`, beside the given library files. */
function keyOf(body: string, lib: Record<string, string> = {}): string | undefined {
  for (const [name, text] of Object.entries(lib)) {
    mkdirSync(path.dirname(path.join(dir, 'lib', name)), { recursive: true });
    writeFileSync(path.join(dir, 'lib', name), text);
  }
  const file = path.join(dir, 'topologies', 'orders.ts');
  writeFileSync(file, `${HEADER}${body}\n`);
  return sourceKey(file, 'salt');
}

describe('the source key of a topology file', () => {
  it('exists for a file that depends on nothing but its text and its local imports', () => {
    expect(keyOf("import { team } from '../lib/team';\nexport default defineTopology({ name: team });", { 'team.ts': "export const team = 'billing';" })).toBeDefined();
  });

  it('changes when a module two imports away changes', () => {
    const lib = { 'a.ts': "export * from './b';", 'b.ts': "export { team } from './c';", 'c.ts': "export const team = 'billing';" };
    const before = keyOf("import { team } from '../lib/a';", lib);
    const after = keyOf("import { team } from '../lib/a';", { ...lib, 'c.ts': "export const team = 'payments';" });
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it.each([
    ['a .js twin beside the imported .ts', "import { team } from '../lib/team';", { 'team.ts': "export const team = 'a';", 'team.js': "exports.team = 'b';" }],
    ['state shared between files through `global`', 'const slot = (global as any).slot;', {}],
    ['the environment', 'const env = process.env.TEAM;', {}],
    ['the clock', 'const now = new Date();', {}],
    ['the time zone or locale', 'const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;', {}],
    ['a locale-dependent formatting', 'const n = (1234).toLocaleString();', {}],
    ['chance', 'const id = crypto.randomUUID();', {}],
    ['where the file lies', "const team = __dirname.split('/').at(-2);", {}],
    ['a stack trace, which names paths', 'const where = new Error().stack;', {}],
    ['a require that is not one string literal', "const load = require; const team = load('../lib/team.json');", { 'team.json': '"billing"' }],
    ['a module named at run time', "const region = 'eu'; const r = require('../lib/regions/' + region);", { 'regions/index.ts': 'export {};', 'regions/eu.ts': 'export {};' }],
    ['a package', "import { readFileSync } from 'node:fs';", {}],
    ['a local module that is missing', "import { team } from '../lib/missing';", {}],
  ])('is absent for a file that depends on %s: such a file is loaded every time', (_what, body, lib) => {
    expect(keyOf(body, lib)).toBeUndefined();
  });

  it('is absent when an imported module is volatile, even if the topology file is not', () => {
    expect(keyOf("import { team } from '../lib/team';", { 'team.ts': 'export const team = process.env.TEAM;' })).toBeUndefined();
  });

  it.each([
    ['escaped in single quotes', "import { sizes } from '../lib/team\\'s-sizes';"],
    ['in double quotes', 'import { sizes } from "../lib/team\'s-sizes";'],
  ])('changes when a module imported by a path with a quote in it (%s) changes', (_how, body) => {
    const before = keyOf(body, { "team's-sizes.ts": 'export const sizes = 12;' });
    const after = keyOf(body, { "team's-sizes.ts": 'export const sizes = 24;' });
    expect(before).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('follows `..` inside a symlinked folder from the real path, as the loader does', () => {
    // topologies/shared -> ../elsewhere/shared; shared/owner.ts imports '../lib/team', which the loader finds in elsewhere/lib.
    mkdirSync(path.join(dir, 'elsewhere', 'shared'), { recursive: true });
    mkdirSync(path.join(dir, 'elsewhere', 'lib'));
    writeFileSync(path.join(dir, 'elsewhere', 'shared', 'owner.ts'), "export { team } from '../lib/team';\n");
    symlinkSync(path.join('..', 'elsewhere', 'shared'), path.join(dir, 'topologies', 'shared'));
    const body = "import { team } from './shared/owner';";
    const lib = { 'team.ts': "export const team = 'not-loaded';" };
    writeFileSync(path.join(dir, 'elsewhere', 'lib', 'team.ts'), "export const team = 'billing';\n");
    const before = keyOf(body, lib);
    writeFileSync(path.join(dir, 'elsewhere', 'lib', 'team.ts'), "export const team = 'payments';\n");
    const after = keyOf(body, lib);
    expect(before).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('follows a topology file that is itself a link from its real path', () => {
    mkdirSync(path.join(dir, 'elsewhere', 'specs'), { recursive: true });
    mkdirSync(path.join(dir, 'elsewhere', 'lib'));
    writeFileSync(path.join(dir, 'elsewhere', 'specs', 'orders.ts'), `${HEADER}import { team } from '../lib/team';\n`);
    writeFileSync(path.join(dir, 'lib', 'team.ts'), "export const team = 'not-loaded';\n");
    const link = path.join(dir, 'topologies', 'linked.ts');
    symlinkSync(path.join(dir, 'elsewhere', 'specs', 'orders.ts'), link);
    writeFileSync(path.join(dir, 'elsewhere', 'lib', 'team.ts'), "export const team = 'billing';\n");
    const before = sourceKey(link, 'salt');
    writeFileSync(path.join(dir, 'elsewhere', 'lib', 'team.ts'), "export const team = 'payments';\n");
    expect(before).toBeDefined();
    expect(sourceKey(link, 'salt')).not.toBe(before);
  });

  it('follows an import with a comment where the path should be', () => {
    const body = "import { team } from /* shared */ '../lib/team';";
    const before = keyOf(body, { 'team.ts': "export const team = 'a';" });
    expect(before).toBeDefined();
    expect(keyOf(body, { 'team.ts': "export const team = 'b';" })).not.toBe(before);
  });

  it('follows the file the loader picks when a folder index lies beside a file of the same name', async () => {
    const body = "import { team } from '../lib/team';\nexport default team;";
    const lib = { 'team.ts': "export const team = 'file';", 'team/index.ts': "export const team = 'index';" };
    const before = keyOf(body, lib);
    const loaded = ((await createJiti(__filename, { moduleCache: false, fsCache: false }).import(path.join(dir, 'topologies', 'orders.ts'))) as { default: string }).default;
    const [picked, other] = loaded === 'file' ? ['team.ts', 'team/index.ts'] : ['team/index.ts', 'team.ts'];
    expect(before).toBeDefined();
    expect(keyOf(body, { ...lib, [other]: "export const team = 'edited';" })).toBe(before);
    expect(keyOf(body, { ...lib, [picked]: "export const team = 'edited';" })).not.toBe(before);
  });

  it.each([
    ['a quoted require', "const { team } = require('../lib/team\\'s');", "team's.ts"],
    ['an import()', "const loaded = import('../lib/team');", 'team.ts'],
    ['an import = require()', "import team = require('../lib/team');", 'team.ts'],
    ['an export from', "export { team } from '../lib/team';", 'team.ts'],
    ['a name written with an escape', "import { team } from '../lib/te\\u0061m';", 'team.ts'],
  ])('follows %s', (_what, body, name) => {
    const before = keyOf(body, { [name]: "export const team = 'a';" });
    expect(before).toBeDefined();
    expect(keyOf(body, { [name]: "export const team = 'b';" })).not.toBe(before);
  });

  it.each([
    ['the environment through an escaped name', 'const env = \\u0070rocess.env.TEAM;'],
    ['a name reached through a string', "const env = (globalThis as any)['pro' + 'cess'];"],
    ['a constructor reached through a string', "const f = ({} as any)['constructor']['constructor'];"],
    ['a require passed around', "const load = require;"],
    ['a file that does not parse', 'export const = ;'],
  ])('is absent for %s', (_what, body) => {
    expect(keyOf(body)).toBeUndefined();
  });
});
