import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where krt's own code lives: `src/` when run from source, `dist/` when installed. */
const CODE_DIR = path.resolve(__dirname, '..');
const PACKAGE_JSON = path.resolve(CODE_DIR, '..', 'package.json');
/** The runbook templates, as the runbook emitter finds them (not imported: that would load handlebars). */
const TEMPLATES_DIR = path.resolve(CODE_DIR, '..', 'templates');

/** The libraries whose output ends up in generated files, and the loader that runs the topology files. */
const OUTPUT_LIBRARIES = ['cdktf', 'constructs', 'handlebars', 'yaml', '@grafana/grafana-foundation-sdk', 'zod', 'jiti'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.map'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function libraryVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

export interface FingerprintSources {
  readonly packageJson: string;
  readonly codeDir: string;
  readonly templatesDir: string;
}

/** Hashes krt's version, the versions of the libraries that render output, and every file of its code and templates. */
export function fingerprintOf({ packageJson, codeDir, templatesDir }: FingerprintSources): string {
  const hash = createHash('sha256');
  hash.update(`krt ${(JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version}\n`);
  for (const name of OUTPUT_LIBRARIES) hash.update(`${name} ${libraryVersion(name)}\n`);
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

let cached: string | undefined;

/**
 * What krt itself contributes to every generated file: its version, the content of its
 * code and templates, and the versions of the libraries that render output. A changed
 * emitter in a development checkout changes it as surely as a release does.
 */
export function krtFingerprint(): string {
  cached ??= fingerprintOf({ packageJson: PACKAGE_JSON, codeDir: CODE_DIR, templatesDir: TEMPLATES_DIR });
  return cached;
}
