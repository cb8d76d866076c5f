import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { filesUnder } from '../util/files-under';
import { TEMPLATES_DIR } from '../util/templates-dir';
import { OWN_PACKAGE_JSON } from '../util/own-package';

/** Where krt's own code lives: `src/` when run from source, `dist/` when installed. */
const CODE_DIR = path.resolve(__dirname, '..');
const PACKAGE_JSON = OWN_PACKAGE_JSON;

/**
 * The libraries whose output ends up in generated files, the loader that runs the
 * topology files, and resolve.exports, which decides whether validate refuses a decode
 * package (so whether anything is generated). The provider bindings
 * (`emitters/terraform/.gen`) are krt's own code, hashed with it.
 */
export const OUTPUT_LIBRARIES = ['cdktf', 'constructs', 'handlebars', 'yaml', '@grafana/grafana-foundation-sdk', 'zod', 'jiti', 'resolve.exports'];

/** The files of a package that Node runs or reads as code and data (not its type declarations, maps or prose). */
const isCode = (name: string) => /\.(c?js|mjs|json|node|wasm)$/.test(name);

/** The folder Node loads package `name` from, for code at `from` (as Node finds it, whatever its `exports` say); undefined when there is none. */
function packageFolder(name: string, from: string): string | undefined {
  for (const dir of createRequire(from).resolve.paths(name) ?? []) {
    if (existsSync(path.join(dir, name, 'package.json'))) return path.join(dir, name);
  }
  return undefined;
}

interface PackageJson {
  name?: unknown;
  version?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readPackageJson(folder: string): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return undefined;
  }
}

/**
 * The version of the copy of `name` that code at `from` loads, or undefined. Found as
 * Node finds the package's folder, through the `node_modules` folders above `from`, and
 * read by path: `require('x/package.json')` fails for a package whose `exports` does not
 * list it (the Grafana foundation SDK's does not).
 */
export function libraryVersion(name: string, from: string): string | undefined {
  const folder = packageFolder(name, from);
  const json = folder && readPackageJson(folder);
  return json && json.name === name && typeof json.version === 'string' ? json.version : undefined;
}

/**
 * Adds a library as it is installed: its version, and the size and modification time of
 * every file of its code, and of the packages it depends on (found from its folder,
 * transitively), so a library patched in place (patch-package, a linked checkout, an
 * edit in node_modules) changes the fingerprint although its version does not. Statting
 * is cheap beside hashing a few thousand files; an edit that keeps both a file's size and
 * its modification time is not seen. False when the library's version cannot be read.
 */
function hashLibrary(hash: Hash, name: string, from: string, done: Set<string>): boolean {
  const folder = packageFolder(name, from);
  const json = folder && readPackageJson(folder);
  if (!folder || !json || json.name !== name || typeof json.version !== 'string') return false;
  const real = realpathSync.native(folder);
  if (done.has(real)) return true;
  done.add(real);
  // One string for the whole library: a hash update per file costs more than the file's stat.
  const lines = [`${name} ${json.version}`];
  for (const file of filesUnder(folder, isCode)) {
    const stat = statSync(file);
    lines.push(`${file.slice(folder.length + 1)} ${stat.size} ${stat.mtimeMs}`);
  }
  hash.update(`${lines.join('\n')}\n`);
  // A dependency that is not installed (an optional one, a peer provided elsewhere) adds nothing; one that is, is hashed like the library.
  const deps = [...Object.keys(json.dependencies ?? {}), ...Object.keys(json.optionalDependencies ?? {}), ...Object.keys(json.peerDependencies ?? {})];
  for (const dep of [...new Set(deps)].sort()) {
    if (packageFolder(dep, path.join(real, 'package.json'))) hashLibrary(hash, dep, path.join(real, 'package.json'), done);
  }
  return true;
}

export interface FingerprintSources {
  readonly packageJson: string;
  readonly codeDir: string;
  readonly templatesDir: string;
  /** Where the libraries are looked up from (krt's own code by default). */
  readonly resolveFrom?: string;
  /** The environment the emitters run in (this process's by default). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The environment variables a library that renders output reads: cdktf takes context from
 * `CDKTF_CONTEXT_JSON` (which can change resource names) and reads a few other `CDKTF_`
 * and `SYNTH_` settings. krt's own emitters read none.
 */
const OUTPUT_ENV = /^(CDKTF_|SYNTH_)/;

/**
 * Hashes krt's version, every file of its code and templates by content (through
 * symbolic links, as the emitters read them), and the libraries that render output as
 * installed (see `hashLibrary`); undefined when a library's version cannot be read: a
 * fingerprint that cannot tell an upgrade from none must not key a cache.
 */
export function fingerprintOf({ packageJson, codeDir, templatesDir, resolveFrom = __filename, env = process.env }: FingerprintSources): string | undefined {
  const hash = createHash('sha256');
  hash.update(`krt ${(JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version}\n`);
  const done = new Set<string>();
  for (const name of OUTPUT_LIBRARIES) {
    hash.update(`library ${name}\n`);
    if (!hashLibrary(hash, name, resolveFrom, done)) return undefined;
  }
  // Another Node may run the same code differently (its Intl data, its globals).
  hash.update(`node ${process.version}\n`);
  for (const name of Object.keys(env).filter((n) => OUTPUT_ENV.test(n)).sort()) hash.update(`env ${name}=${env[name]}\n`);
  for (const root of [codeDir, templatesDir]) {
    for (const file of filesUnder(root, (name) => !name.endsWith('.map'))) {
      hash.update(`\0${path.relative(root, file)}\0`);
      hash.update(readFileSync(file));
    }
  }
  return hash.digest('hex');
}

/**
 * The topology loader as installed: jiti and its dependencies (hashed like an output
 * library) and the Node that runs it. It keys the loader's own cache of compiled
 * TypeScript, whose entries jiti finds by the source text alone: a loader that compiles
 * the same source otherwise must not run what an earlier one compiled. Undefined when
 * jiti's version cannot be read: then no transpile cache.
 */
export function loaderFingerprint(loaderOptions: string, from = __filename): string | undefined {
  const hash = createHash('sha256');
  if (!hashLibrary(hash, 'jiti', from, new Set())) return undefined;
  hash.update(`node ${process.version}\noptions ${loaderOptions}\n`);
  return hash.digest('hex').slice(0, 16);
}

let cached: { value: string | undefined } | undefined;

/**
 * What krt itself contributes to every generated file: its version, the content of its
 * code and templates, and the libraries that render output as installed. A changed
 * emitter in a development checkout changes it as surely as a release does. Undefined
 * when it cannot be known: synth then neither reads nor writes the cache.
 */
export function krtFingerprint(): string | undefined {
  cached ??= { value: fingerprintOf({ packageJson: PACKAGE_JSON, codeDir: CODE_DIR, templatesDir: TEMPLATES_DIR }) };
  return cached.value;
}
