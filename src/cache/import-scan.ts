import { pathToFileURL } from 'node:url';
import { createJiti } from 'jiti';

type Jiti = ReturnType<typeof createJiti>;

/**
 * What a module's export may depend on besides its text and the modules it imports: the
 * environment, the clock, the locale, chance, where the file lies, state shared between
 * files, and code built at run time. Checked on the parsed module (so `\u0070rocess` is
 * `process`) and, conservatively, on its raw text (see `source-key.ts`).
 */
const VOLATILE_NAMES = new Set([
  'process', 'globalThis', 'global', 'module', 'exports',
  'Date', 'performance', 'setTimeout', 'setInterval',
  'Intl', 'localeCompare',
  'random', 'crypto',
  '__dirname', '__filename', 'stack', 'fetch',
  'eval', 'Function', 'createRequire', 'constructor',
]);
const isVolatileName = (name: string) => VOLATILE_NAMES.has(name) || name.startsWith('toLocale');

/** Keys of a Babel node that hold no code. */
const NOT_CODE = new Set(['loc', 'start', 'end', 'range', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'comments', 'tokens']);

interface Node {
  readonly type: string;
  readonly [key: string]: unknown;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** A module named by one literal string: `'x'`, or a template with nothing interpolated. */
function literal(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'StringLiteral') return node.value as string;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    return ((node.quasis as Array<{ value: { cooked?: string } }>)[0]?.value.cooked) ?? undefined;
  }
  return undefined;
}

/** The modules a parsed program imports, or undefined when it may read anything else. */
function importsOf(program: Node): string[] | undefined {
  const specifiers: string[] = [];
  let sure = true;
  const handledRequires = new Set<Node>();
  const visit = (node: Node): void => {
    if (!sure) return;
    switch (node.type) {
      case 'ImportDeclaration':
        if (node.importKind !== 'type') specifiers.push(literal(node.source)!);
        return;
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
        if (node.source && node.exportKind !== 'type') specifiers.push(literal(node.source)!);
        break;
      case 'TSImportEqualsDeclaration': {
        const reference = node.moduleReference as Node;
        if (reference.type === 'TSExternalModuleReference' && node.importKind !== 'type') specifiers.push(literal(reference.expression)!);
        return;
      }
      // Types only: erased before the module runs.
      case 'TSImportType':
      case 'TSTypeAnnotation':
      case 'TSInterfaceDeclaration':
      case 'TSTypeAliasDeclaration':
        return;
      case 'ImportExpression': {
        const named = literal(node.source);
        if (named === undefined || node.options) sure = false;
        else specifiers.push(named);
        return;
      }
      case 'CallExpression': {
        const callee = node.callee as Node;
        const isImport = callee.type === 'Import';
        const isRequire = callee.type === 'Identifier' && callee.name === 'require';
        if (isImport || isRequire) {
          const args = node.arguments as unknown[];
          const named = args.length === 1 ? literal(args[0]) : undefined;
          if (named === undefined) {
            sure = false;
            return;
          }
          specifiers.push(named);
          if (isRequire) handledRequires.add(callee);
        }
        break;
      }
      case 'MetaProperty':
        // import.meta names the file; new.target is harmless but rare enough to treat alike.
        sure = false;
        return;
      case 'Identifier':
      case 'JSXIdentifier':
        if ((node.name === 'require' && !handledRequires.has(node)) || isVolatileName(node.name as string)) sure = false;
        return;
      case 'StringLiteral':
        // `x['constructor']`, `globalThis['process']`: a name reached through a string.
        if (isVolatileName(node.value as string)) sure = false;
        return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (NOT_CODE.has(key)) continue;
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item);
      } else if (isNode(value)) {
        visit(value);
      }
    }
  };
  visit(program);
  return sure ? specifiers : undefined;
}

let jiti: Jiti | undefined;

/** A loader configured as the one that runs topology files (`load/load-topologies.ts`), for its parser and its resolver. */
function loaderTwin(): Jiti {
  jiti ??= createJiti(__filename, { moduleCache: false, fsCache: false, interopDefault: false });
  return jiti;
}

/** Thrown from inside the parse to skip the transform: only the syntax tree is wanted. */
const PARSED = new Error('parsed');

/**
 * The modules a source file imports (`import`, `export ... from`, `import x = require()`,
 * `require('x')`, `import('x')`), read from the syntax tree of the very parser that loads
 * the file (jiti's), so a path with a quote or a comment in the way is seen as the loader
 * sees it. Undefined when the file cannot be parsed or may depend on anything but its
 * text and those modules: a `require` or `import()` of a computed name, the environment,
 * the clock, the locale, chance, where the file lies.
 */
export function scanImports(text: string, file: string): string[] | undefined {
  if (file.endsWith('.json')) return [];
  let found: string[] | undefined;
  let parsed = false;
  loaderTwin().transform({
    source: text,
    filename: file,
    ts: /\.[cm]?tsx?$/.test(file),
    babel: {
      plugins: [
        () => ({
          pre(this: unknown, state: { ast: { program: Node } }) {
            parsed = true;
            found = importsOf(state.ast.program);
            throw PARSED;
          },
        }),
      ],
    },
  });
  return parsed ? found : undefined;
}

/** The file the loader loads for `specifier` imported from `from` (a real path), or undefined when none. */
export function resolveAsLoader(specifier: string, from: string): string | undefined {
  try {
    const resolved = loaderTwin().resolve(specifier, { parentURL: pathToFileURL(from).href, try: true } as Parameters<Jiti['resolve']>[1]);
    return typeof resolved === 'string' && resolved !== '' ? resolved : undefined;
  } catch {
    return undefined;
  }
}
