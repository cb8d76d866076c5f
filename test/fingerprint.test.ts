import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fingerprintOf, OUTPUT_LIBRARIES } from '../src/cache/fingerprint';
import { REPO_ROOT } from './helpers/project';
import { resolveSpecifier, specifiersOf } from './helpers/imports';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'krt-fingerprint-'));
  mkdirSync(path.join(root, 'src', 'emitters', 'terraform', '.gen', 'providers', 'kafka'), { recursive: true });
  mkdirSync(path.join(root, 'templates'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '1.0.0' }));
  writeFileSync(path.join(root, 'src', 'emitter.js'), 'module.exports = 1;\n');
  writeFileSync(path.join(root, 'src', 'emitters', 'terraform', '.gen', 'providers', 'kafka', 'topic.js'), 'exports.topic = 1;\n');
  writeFileSync(path.join(root, 'templates', 'page.md.hbs'), '# {{name}}\n');
  for (const name of OUTPUT_LIBRARIES) installLibrary(name, '1.0.0');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * A library in the fake project's node_modules whose `exports` does not list its
 * package.json, as the Grafana foundation SDK's does not: its version is readable only by
 * a route that does not go through `exports`.
 */
function installLibrary(name: string, version: string): void {
  const dir = path.join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version, exports: { './dashboard': './dashboard.js' } }));
  writeFileSync(path.join(dir, 'dashboard.js'), 'exports.x = 1;\n');
}

const sources = () => ({
  packageJson: path.join(root, 'package.json'),
  codeDir: path.join(root, 'src'),
  templatesDir: path.join(root, 'templates'),
  resolveFrom: path.join(root, 'src', 'emitter.js'),
});

describe('krt fingerprint', () => {
  it.each([
    ['a template', 'templates/page.md.hbs', '## {{name}}\n'],
    ['an emitter', 'src/emitter.js', 'module.exports = 2;\n'],
    ['a provider binding', 'src/emitters/terraform/.gen/providers/kafka/topic.js', 'exports.topic = 2;\n'],
    ['the version', 'package.json', JSON.stringify({ version: '1.0.1' })],
  ])('changes when %s changes', (_what, file, content) => {
    const before = fingerprintOf(sources());
    expect(before).toBeDefined();
    expect(fingerprintOf(sources())).toBe(before);
    writeFileSync(path.join(root, file), content);
    expect(fingerprintOf(sources())).not.toBe(before);
  });

  it('changes with the cdktf settings of the environment, which can rename resources', () => {
    const before = fingerprintOf({ ...sources(), env: { PATH: '/bin' } });
    expect(fingerprintOf({ ...sources(), env: { PATH: '/usr/bin' } })).toBe(before);
    expect(fingerprintOf({ ...sources(), env: { PATH: '/bin', CDKTF_CONTEXT_JSON: '{"allowSepCharsInLogicalIds":"true"}' } })).not.toBe(before);
  });

  it.each(OUTPUT_LIBRARIES.map((name) => [name]))('changes when %s is upgraded, although its package.json is not in its exports', (name) => {
    const before = fingerprintOf(sources());
    installLibrary(name, '1.0.1');
    expect(fingerprintOf(sources())).not.toBe(before);
  });

  it('is absent when a library version cannot be read, so that nothing is cached', () => {
    rmSync(path.join(root, 'node_modules', '@grafana'), { recursive: true });
    expect(fingerprintOf(sources())).toBeUndefined();
    installLibrary('@grafana/grafana-foundation-sdk', '1.0.0');
    writeFileSync(path.join(root, 'node_modules', '@grafana/grafana-foundation-sdk', 'package.json'), JSON.stringify({ name: '@grafana/grafana-foundation-sdk' }));
    expect(fingerprintOf(sources())).toBeUndefined();
  });

  it('reads the version of every library the real krt renders output with', () => {
    expect(fingerprintOf({ ...sources(), resolveFrom: path.join(REPO_ROOT, 'src', 'cache', 'fingerprint.ts') })).toBeDefined();
  });

  it('covers every package that the code between a spec and the generated files imports', () => {
    // Everything under src/ but the runtime (and its older names in public/), the CLI's other commands and their Kafka connection, the DLQ console and the NestJS module, which shape no generated file.
    const outside = /^(runtime|nestjs|public|dlq|connection|simulate|cli|plan|console)\//;
    const files = readdirSync(path.join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('.gen'))
      .map((e) => path.relative(path.join(REPO_ROOT, 'src'), path.join(e.parentPath, e.name)))
      .filter((file) => !outside.test(file));
    const packages = new Set<string>();
    for (const file of files.map((f) => path.join(REPO_ROOT, 'src', f))) {
      // Every import syntax (require() and import() included), resolved as the compiler does.
      for (const specifier of specifiersOf(file)) {
        const target = resolveSpecifier(specifier, file);
        if ('package' in target && !target.package.startsWith('node:')) packages.add(target.package);
      }
    }
    expect([...packages].filter((p) => !OUTPUT_LIBRARIES.includes(p)).sort()).toEqual([]);
  });
});
