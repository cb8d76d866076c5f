import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Import specifiers written as string literals: `import ... from 'x'`, `export ... from 'x'`, `import 'x'`, `require('x')`, `import('x')`. */
const IMPORT_PATTERN = /\b(?:from\s*|import\s*\(?\s*|require\s*\(\s*)(['"])([^'"\n]+)\1/g;

/**
 * Things whose value can change without the file changing: the environment, the clock,
 * chance, a module named at run time. A file that mentions any of them is loaded every
 * time, however unlikely it is to use them.
 */
const VOLATILE_PATTERN = /\bprocess\b|\bglobalThis\b|\bDate\b|\bMath\.random\b|\beval\b|\bFunction\s*\(|\bimport\s*\(\s*[^'"\s]|\brequire\s*\(\s*[^'"\s]|\bimport\.meta\b/;

/** The package a topology imports its API from: part of krt's own fingerprint. */
const KRT_PACKAGE = /^kafka-retry-topology(\/|$)/;

const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '/index.ts', '/index.js'];

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return EXTENSIONS.map((ext) => `${base}${ext}`).find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/**
 * A hash of everything a topology file's export can depend on: its own text and the text
 * of every local module it imports, transitively. Undefined when the file may depend on
 * something else (another package, the environment, the clock): such a file is always
 * loaded, and only its outputs come from the cache, keyed on the model it produced.
 */
export function sourceKey(file: string, salt: string): string | undefined {
  const hash = createHash('sha256').update(salt);
  const seen = new Set<string>();
  const pending = [file];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const text = readFileSync(current, 'utf8');
    if (VOLATILE_PATTERN.test(text)) return undefined;
    hash.update(`\0${path.relative(path.dirname(file), current)}\0${text}`);
    for (const [, , specifier] of text.matchAll(IMPORT_PATTERN)) {
      if (KRT_PACKAGE.test(specifier!)) continue;
      if (!specifier!.startsWith('.')) return undefined;
      const resolved = resolveLocal(current, specifier!);
      if (!resolved) return undefined;
      pending.push(resolved);
    }
  }
  return hash.digest('hex');
}
