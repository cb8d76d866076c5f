import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_SPECIFIER_PATTERN } from '../spec/value-codec';

/** A decode function's package as installed beside a topology file: its package.json's `exports` (undefined when it has none). */
export interface InstalledPackage {
  readonly exports: unknown;
}

/**
 * What the loader found of each package a topology file's consumers decode with
 * (`value: { decode, from }`), by package name: the package as Node finds it from the
 * file's folder, or null when it is not installed there. Read while the file is loaded,
 * so the rules that judge it (`consumer-rules.ts`) read no file themselves.
 */
export type InstalledPackages = ReadonlyMap<string, InstalledPackage | null>;

export const NO_PACKAGES: InstalledPackages = new Map();

/** The package a specifier names, and the subpath of its exports it asks for: `@acme/events/codecs` is `@acme/events` and `./codecs`. */
export function packageOf(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  return { name: parts.slice(0, length).join('/'), subpath: ['.', ...parts.slice(length)].join('/') };
}

/**
 * The packages named by the `value.from` of the consumers of a topology file's export (as
 * written: the spec is parsed later), each read from the node_modules beside the file or
 * above it. `absoluteFile` is the file's absolute path: a relative one would be taken from
 * the process's working directory, not the project's.
 */
export function installedDecoderPackages(exported: unknown, absoluteFile: string): InstalledPackages {
  const consumers = (exported as { consumers?: unknown } | null | undefined)?.consumers;
  if (!Array.isArray(consumers)) return NO_PACKAGES;
  const found = new Map<string, InstalledPackage | null>();
  for (const consumer of consumers) {
    const from = (consumer as { value?: { from?: unknown } } | null | undefined)?.value?.from;
    // Only a package name is looked up (the spec's parse refuses anything else): never a path.
    if (typeof from !== 'string' || !PACKAGE_SPECIFIER_PATTERN.test(from)) continue;
    const { name } = packageOf(from);
    if (!found.has(name)) found.set(name, installedManifest(name, path.dirname(absoluteFile)) ?? null);
  }
  return found;
}

/** The package.json of a package as Node finds it from a folder: in node_modules there or in a folder above. */
function installedManifest(name: string, from: string): InstalledPackage | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8');
    } catch {
      // Not here (or unreadable): the folder above.
    }
    if (text !== undefined) {
      try {
        return { exports: (JSON.parse(text) as { exports?: unknown } | null)?.exports };
      } catch {
        // Not JSON: require would stop on it too, for a reason the rule does not judge.
        return { exports: undefined };
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}
