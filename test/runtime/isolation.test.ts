import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/project';

/** Every module the runtime's entry point reaches, following relative imports. */
function reachableFrom(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8')).importedFiles) {
      if (fileName.startsWith('.')) {
        const base = path.resolve(path.dirname(file), fileName);
        visit([`${base}.ts`, path.join(base, 'index.ts')].find((f) => ts.sys.fileExists(f))!);
      } else {
        packages.add(fileName.split('/')[0]!.startsWith('@') ? fileName.split('/').slice(0, 2).join('/') : fileName.split('/')[0]!);
      }
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(REPO_ROOT, f)).sort(), packages: [...packages].sort() };
}

describe('kafka-retry-topology/runtime', () => {
  const { files, packages } = reachableFrom(path.join(REPO_ROOT, 'src', 'runtime', 'index.ts'));

  it('imports no generator code', () => {
    const outside = files.filter((f) => !f.startsWith('src/runtime/'));
    expect(outside).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts']);
  });

  it('depends on prom-client alone, besides Node built-ins: no Terraform, template or spec tooling', () => {
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['prom-client']);
  });
});
