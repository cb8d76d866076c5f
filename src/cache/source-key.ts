import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Import specifiers written as string literals: `import ... from 'x'`, `export ... from 'x'`, `import 'x'`, `require('x')`, `import('x')`. */
const IMPORT_PATTERN = /\b(?:from\s*|import\s*\(?\s*|require\s*\(\s*)(['"])([^'"\n]+)\1/g;

/**
 * What a file's export may depend on besides its text and its local imports: the
 * environment, the clock, the locale, chance, where the file lies, state shared between
 * files, and modules named in ways this scanner does not follow (a `require` or `import()`
 * that is not one string literal, a comment where the path should be). A file that
 * mentions any of them is loaded every time, however unlikely it is to use them: a
 * needless load costs time, a missed input serves stale output.
 */
const VOLATILE = [
  /\bprocess\b|\bglobalThis\b|\bglobal\b|\bmodule\b|\bexports\b/,
  /\bDate\b|\bperformance\b|\bsetTimeout\b|\bsetInterval\b/,
  /\bIntl\b|\btoLocale\w*|\blocaleCompare\b/,
  /\bMath\.random\b|\bcrypto\b/,
  /\b__dirname\b|\b__filename\b|\bimport\.meta\b|\.stack\b|\bfetch\b/,
  /\beval\b|\bFunction\s*\(|\bcreateRequire\b/,
  // Every require( and import( must be one string literal and nothing more.
  /\brequire\b(?!\s*\(\s*(['"])[^'"\n]+\1\s*\))/,
  /\bimport\s*\((?!\s*(['"])[^'"\n]+\1\s*\))/,
  // A comment between `from` or `import` and the path hides the path from the scanner.
  /\b(?:from|import)\s*\/[*/]/,
];

const isVolatile = (text: string) => VOLATILE.some((pattern) => pattern.test(text));

/** The package a topology imports its API from: part of krt's own fingerprint. */
const KRT_PACKAGE = /^kafka-retry-topology(\/|$)/;

const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '/index.ts', '/index.tsx', '/index.mts', '/index.cts', '/index.js', '/index.mjs', '/index.cjs', '/index.json'];

/**
 * The one file a local specifier names, or undefined when none or several exist: the
 * loader's order among `b.ts`, `b.js` and `b/index.ts` is its own (jiti tries `.js`
 * before `.ts`), and a key built from the wrong one would miss the edits of the other.
 * An explicit `.js` that stands for a `.ts` resolves to nothing here: loaded every time.
 */
function resolveLocal(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const found = EXTENSIONS.map((ext) => `${base}${ext}`).filter((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  return found.length === 1 ? found[0] : undefined;
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
    if (isVolatile(text)) return undefined;
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
