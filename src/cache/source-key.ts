import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { resolveAsLoader, scanImports } from './import-scan';

/**
 * Words that may mean a module depends on more than its text and its imports (see
 * `import-scan.ts`), looked for in the raw text too, comments and strings included: a
 * needless load costs time, a missed input serves stale output.
 */
const VOLATILE = [
  /\bprocess\b|\bglobalThis\b|\bglobal\b|\bmodule\b|\bexports\b/,
  /\bDate\b|\bperformance\b|\bsetTimeout\b|\bsetInterval\b/,
  /\bIntl\b|\btoLocale\w*|\blocaleCompare\b/,
  /\bMath\.random\b|\bcrypto\b/,
  /\b__dirname\b|\b__filename\b|\bimport\.meta\b|\.stack\b|\bfetch\b/,
  /\beval\b|\bFunction\s*\(|\bcreateRequire\b/,
];

const isVolatile = (file: string, text: string) => !file.endsWith('.json') && VOLATILE.some((pattern) => pattern.test(text));

/** The package a topology imports its API from: part of krt's own fingerprint. */
const KRT_PACKAGE = /^kafka-retry-topology(\/|$)/;

/** The modules a file imports, by its text and name; undefined when that cannot be known. */
export type ImportScanner = (text: string, file: string) => readonly string[] | undefined;

/**
 * A hash of everything a topology file's export can depend on: its own text and the text
 * of every local module it imports, transitively, each found as the loader finds it (from
 * its real path, so `..` in a linked folder leads where it leads the loader). Undefined
 * when the file may depend on something else (another package, the environment, the
 * clock, a module named at run time) or the imports cannot be told for sure: such a file
 * is always loaded, and only its outputs come from the cache, keyed on its model.
 */
export function sourceKey(file: string, salt: string, scan: ImportScanner = scanImports): string | undefined {
  let root: string;
  try {
    root = realpathSync.native(file);
  } catch {
    return undefined;
  }
  const hash = createHash('sha256').update(salt);
  const seen = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    let text: string;
    try {
      text = readFileSync(current, 'utf8');
    } catch {
      return undefined;
    }
    if (isVolatile(current, text)) return undefined;
    hash.update(`\0${path.relative(path.dirname(root), current)}\0${text}`);
    const specifiers = scan(text, current);
    if (specifiers === undefined) return undefined;
    for (const specifier of specifiers) {
      if (KRT_PACKAGE.test(specifier)) continue;
      if (!specifier.startsWith('.') && !path.isAbsolute(specifier)) return undefined;
      const resolved = resolveAsLoader(specifier, current);
      if (!resolved || !path.isAbsolute(resolved)) return undefined;
      // The path a module was found at is part of the key: a move between two files changes it.
      hash.update(`\0${specifier}\0${path.relative(path.dirname(root), resolved)}`);
      pending.push(resolved);
    }
  }
  return hash.digest('hex');
}
