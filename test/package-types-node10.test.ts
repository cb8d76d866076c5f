import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './helpers/project';

/*
 * A service or topology repository whose tsconfig resolves modules the old way
 * (`"moduleResolution": "node"`, node10: what `"module": "commonjs"` gives when no
 * moduleResolution is set, as in NestJS applications created before Nest 11) does not read
 * `exports`. It still runs on Node, which does; so each subpath entry point needs its types
 * found by the old resolution too (`typesVersions`), or `import ... from
 * '@kafka-retry-topology/runtime/nestjs'` compiles nowhere in such a project, while the same
 * import resolves at run time.
 *
 * The packages are laid out under a virtual node_modules from their manifests, with every
 * file their `exports` name as types present: no build needed.
 */

const PACKAGES = [
  { name: 'kafka-retry-topology', manifest: path.join(REPO_ROOT, 'package.json') },
  { name: '@kafka-retry-topology/runtime', manifest: path.join(REPO_ROOT, 'packages', 'runtime', 'package.json') },
];

type Manifest = { exports: Record<string, string | { types?: string }> };

const project = '/virtual-service';
const files = new Map<string, string>();
const entryPoints: { specifier: string; types: string }[] = [];
for (const { name, manifest } of PACKAGES) {
  const text = readFileSync(manifest, 'utf8');
  const root = path.posix.join(project, 'node_modules', name);
  files.set(path.posix.join(root, 'package.json'), text);
  for (const [subpath, target] of Object.entries((JSON.parse(text) as Manifest).exports)) {
    if (typeof target === 'string' || !target.types) continue;
    const types = path.posix.join(root, target.types);
    files.set(types, 'export {};\n');
    entryPoints.push({ specifier: path.posix.join(name, subpath), types });
  }
}

const host: ts.ModuleResolutionHost = {
  fileExists: (file) => files.has(file),
  readFile: (file) => files.get(file),
  directoryExists: (dir) => [...files.keys()].some((file) => file.startsWith(`${dir}/`)),
  getCurrentDirectory: () => project,
};

const resolutions = [
  { name: 'node10', options: { moduleResolution: ts.ModuleResolutionKind.Node10, module: ts.ModuleKind.CommonJS } },
  { name: 'node16', options: { moduleResolution: ts.ModuleResolutionKind.Node16, module: ts.ModuleKind.Node16 } },
  { name: 'bundler', options: { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext } },
];

it('lays out every entry point of both packages', () => {
  expect(entryPoints.map((e) => e.specifier).sort()).toEqual(
    ['@kafka-retry-topology/runtime', '@kafka-retry-topology/runtime/nestjs', 'kafka-retry-topology', 'kafka-retry-topology/nestjs', 'kafka-retry-topology/runtime'].sort(),
  );
});

describe.each(resolutions)('under "moduleResolution": "$name"', ({ options }) => {
  it.each(entryPoints)('resolves the types of $specifier to the file its exports name', ({ specifier, types }) => {
    const resolved = ts.resolveModuleName(specifier, path.posix.join(project, 'src', 'main.ts'), options, host);
    expect(resolved.resolvedModule?.resolvedFileName).toBe(types);
  });
});
