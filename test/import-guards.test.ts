/**
 * The two import guards of #24 (test/runtime/import-cycles.test.ts: no cycle; isolation.test.ts:
 * the runtime reaches no generator code) read imports through test/helpers/imports.ts. They
 * once used a lexical scan of relative specifiers, which missed `require()`, `export * as` and
 * the tsconfig paths, so a cycle or a generator file reached that way passed (review of #24).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reachableFrom, sourceImportsOf } from './helpers/imports';
import { REPO_ROOT } from './helpers/project';

describe('the import guards', () => {
  it('follow require(), dynamic import(), import types and export * as, not only import declarations', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'import-guards-'));
    writeFileSync(path.join(dir, 'entry.ts'), "export * as model from './model';\nexport const load = () => require('./cli') as typeof import('./types');\nexport const later = () => import('./lazy');\n");
    for (const name of ['model', 'cli', 'types', 'lazy']) writeFileSync(path.join(dir, `${name}.ts`), 'export const x = 1;\n');
    expect(reachableFrom(path.join(dir, 'entry.ts')).files.map((f) => path.basename(f)).sort()).toEqual(['cli.ts', 'entry.ts', 'lazy.ts', 'model.ts', 'types.ts']);
  });

  it('follow the tsconfig paths to the file they name, as the compiler does', () => {
    expect(sourceImportsOf(path.join(REPO_ROOT, 'src', 'public', 'runtime.ts')).map((f) => path.relative(REPO_ROOT, f))).toEqual(['src/runtime/index.ts']);
    expect(sourceImportsOf(path.join(REPO_ROOT, 'src', 'public', 'nestjs.ts')).map((f) => path.relative(REPO_ROOT, f))).toEqual(['src/nestjs/index.ts']);
  });

  it('name a package by its name, a scoped one by scope and name, whatever subpath is imported', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'import-guards-'));
    writeFileSync(path.join(dir, 'entry.ts'), "import { Registry } from 'prom-client';\nimport type { Span } from '@opentelemetry/api/build/src/trace/span';\nimport { createHash } from 'node:crypto';\n");
    expect(reachableFrom(path.join(dir, 'entry.ts')).packages).toEqual(['@opentelemetry/api', 'node:crypto', 'prom-client']);
  });
});
