import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';

/** Every file under a folder, recursively, whose name ends with one of the extensions. */
function filesUnder(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name.startsWith('.') ? [] : filesUnder(file, extensions);
    return extensions.some((e) => name.endsWith(e)) ? [file] : [];
  });
}

const defined = new Set([...readFileSync(path.join(REPO_ROOT, 'docs', 'requirements.md'), 'utf8').matchAll(/^\| (R\d+) \|/gm)].map((m) => m[1]!));

describe('the requirement codes', () => {
  it('are each defined in docs/requirements.md wherever src/ or docs/ cites one', () => {
    const cited = [...filesUnder(path.join(REPO_ROOT, 'src'), ['.ts']), ...filesUnder(path.join(REPO_ROOT, 'docs'), ['.md'])]
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bR(\d{1,2})\b/g)].map((m) => ({ code: `R${m[1]}`, file: path.relative(REPO_ROOT, file) })));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ code }) => !defined.has(code))).toEqual([]);
  });
});
