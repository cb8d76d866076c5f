import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    ['a folder index beside a file of the same name', "import { team } from '../lib/team';", { 'team.ts': "export const team = 'a';", 'team/index.ts': "export const team = 'b';" }],
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
    ['a comment where the path should be', "import { team } from /* shared */ '../lib/team';", { 'team.ts': "export const team = 'a';" }],
    ['a package', "import { readFileSync } from 'node:fs';", {}],
    ['a local module that is missing', "import { team } from '../lib/missing';", {}],
  ])('is absent for a file that depends on %s: such a file is loaded every time', (_what, body, lib) => {
    expect(keyOf(body, lib)).toBeUndefined();
  });

  it('is absent when an imported module is volatile, even if the topology file is not', () => {
    expect(keyOf("import { team } from '../lib/team';", { 'team.ts': 'export const team = process.env.TEAM;' })).toBeUndefined();
  });
});
