import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Where krt's own code lives: `src/` when run from source, `dist/` when installed. */
const CODE_DIR = path.resolve(__dirname, '..');
const PACKAGE_JSON = path.resolve(CODE_DIR, '..', 'package.json');
/** The runbook templates, as the runbook emitter finds them (not imported: that would load handlebars). */
const TEMPLATES_DIR = path.resolve(CODE_DIR, '..', 'templates');

/**
 * The libraries whose output ends up in generated files, and the loader that runs the
 * topology files. The provider bindings (`emitters/terraform/.gen`) are krt's own code,
 * hashed with it.
 */
export const OUTPUT_LIBRARIES = ['cdktf', 'constructs', 'handlebars', 'yaml', '@grafana/grafana-foundation-sdk', 'zod', 'jiti'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.map'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/**
 * The version of the copy of `name` that code at `from` loads, or undefined. Found as
 * Node finds the package's folder, through the `node_modules` folders above `from`, and
 * read by path: `require('x/package.json')` fails for a package whose `exports` does not
 * list it (the Grafana foundation SDK's does not).
 */
export function libraryVersion(name: string, from: string): string | undefined {
  for (const dir of createRequire(from).resolve.paths(name) ?? []) {
    const file = path.join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const json = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      return json.name === name && typeof json.version === 'string' ? json.version : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface FingerprintSources {
  readonly packageJson: string;
  readonly codeDir: string;
  readonly templatesDir: string;
  /** Where the libraries are looked up from (krt's own code by default). */
  readonly resolveFrom?: string;
}

/**
 * Hashes krt's version, the versions of the libraries that render output, and every file
 * of its code and templates; undefined when a version cannot be read: a fingerprint that
 * cannot tell an upgrade from none must not key a cache.
 */
export function fingerprintOf({ packageJson, codeDir, templatesDir, resolveFrom = __filename }: FingerprintSources): string | undefined {
  const hash = createHash('sha256');
  hash.update(`krt ${(JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version}\n`);
  for (const name of OUTPUT_LIBRARIES) {
    const version = libraryVersion(name, resolveFrom);
    if (version === undefined) return undefined;
    hash.update(`${name} ${version}\n`);
  }
  // Another Node may run the same topology text differently (its Intl data, its globals).
  hash.update(`node ${process.version}\n`);
  for (const [root, files] of [codeDir, templatesDir].map((dir) => [dir, filesUnder(dir)] as const)) {
    for (const file of files) {
      hash.update(`\0${path.relative(root, file)}\0`);
      hash.update(readFileSync(file));
    }
  }
  return hash.digest('hex');
}

let cached: { value: string | undefined } | undefined;

/**
 * What krt itself contributes to every generated file: its version, the content of its
 * code and templates, and the versions of the libraries that render output. A changed
 * emitter in a development checkout changes it as surely as a release does. Undefined
 * when it cannot be known: synth then neither reads nor writes the cache.
 */
export function krtFingerprint(): string | undefined {
  cached ??= { value: fingerprintOf({ packageJson: PACKAGE_JSON, codeDir: CODE_DIR, templatesDir: TEMPLATES_DIR }) };
  return cached.value;
}
