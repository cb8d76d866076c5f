import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headingAnchors } from './helpers/markdown';
import { REPO_ROOT } from './helpers/project';

/** The README and every page under docs/: the Markdown a reader follows links through. */
const pages = ['README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Relative links `[text](target)` outside code blocks; web addresses are not ours to check. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the documentation links', () => {
  it.each(pages)('in %s lead to files and headings that exist', (page) => {
    const broken: string[] = [];
    for (const link of relativeLinks(readFileSync(path.join(REPO_ROOT, page), 'utf8'))) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file ? path.resolve(path.dirname(path.join(REPO_ROOT, page)), file) : path.join(REPO_ROOT, page);
      if (!existsSync(target)) { broken.push(`${link}: no such file`); continue; }
      if (anchor && !headingAnchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('reach every page under docs/ from the README or the docs index', () => {
    const linked = new Set(['README.md', 'docs/README.md'].flatMap((p) => relativeLinks(readFileSync(path.join(REPO_ROOT, p), 'utf8')).map((l) => path.normalize(path.join(path.dirname(p), l.split('#')[0]!)))));
    expect(pages.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([]);
  });
});
