import type Slugger from 'github-slugger' with { 'resolution-mode': 'import' };

// github-slugger is an ES module (jest compiles it to CommonJS, see jest.config.js).
const GithubSlugger: typeof Slugger = require('github-slugger').default;

/** The anchors GitHub gives the headings of a Markdown page (code blocks skipped). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) anchors.add(slugger.slug(heading[1]!));
  }
  return anchors;
}

/** The `#fragment` of every in-page link `[text](#fragment)`. */
export function inPageLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
}
