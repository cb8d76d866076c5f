import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './project';

/** Every source file an entry point reaches through relative imports, and every package it imports, relative to the repository. */
export function reachableFrom(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8')).importedFiles) {
      if (fileName.startsWith('.')) {
        const base = path.resolve(path.dirname(file), fileName);
        visit([`${base}.ts`, path.join(base, 'index.ts')].find((f) => ts.sys.fileExists(f))!);
      } else {
        const parts = fileName.split('/');
        packages.add(parts[0]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(REPO_ROOT, f)).sort(), packages: [...packages].sort() };
}
