import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './project';

/** The project's compiler options (tsconfig.json, its paths included), read once. */
const compilerOptions = (() => {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  return config!.options;
})();

/**
 * Every module specifier of a file, in any syntax the compiler or Node follows: import and
 * export declarations (`export * as ns` included), `import x = require()`, `require()`,
 * dynamic `import()` and `import('x')` types. Read from the syntax tree, not a lexical scan.
 */
export function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) found.push(node.moduleReference.expression.text);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** What a specifier names: a source file of this repository (resolved as the compiler does, tsconfig paths included) or a package. */
export function resolveSpecifier(specifier: string, from: string): { file: string } | { package: string } {
  const resolved = ts.resolveModuleName(specifier, from, compilerOptions, ts.sys).resolvedModule?.resolvedFileName;
  if (resolved && !resolved.includes(`${path.sep}node_modules${path.sep}`) && !resolved.endsWith('.d.ts')) return { file: resolved };
  const parts = specifier.split('/');
  return { package: parts[0]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]! };
}

/** The source files a file imports in any syntax, resolved as the compiler does. */
export function sourceImportsOf(file: string): string[] {
  return specifiersOf(file).flatMap((specifier) => {
    const target = resolveSpecifier(specifier, file);
    return 'file' in target ? [target.file] : [];
  });
}

/** Every source file an entry point reaches, in any import syntax, and every package it imports, relative to the repository. */
export function reachableFrom(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of specifiersOf(file)) {
      const target = resolveSpecifier(specifier, file);
      if ('file' in target) visit(target.file);
      else packages.add(target.package);
    }
  };
  visit(path.resolve(entry));
  return { files: [...files].map((f) => path.relative(REPO_ROOT, f)).sort(), packages: [...packages].sort() };
}
