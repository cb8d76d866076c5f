import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * A benchmark figure in a comment goes stale with the next run and nobody sees it (#24): the
 * figures live in docs/benchmarks.md and bench/results.md, and a comment points there.
 */
const SRC = path.join(__dirname, '..', 'src');

/** What a measured figure looks like: a ratio, a rate, a time per record or operation. */
const FIGURE = /\b\d+(?:[.,]\d+)*\s*(?:x\b|records?\/s|ops\/s|MB\/s|µs|ns\b|microseconds?\b)/;

function commentsOf(file: string): { line: number; text: string }[] {
  const text = readFileSync(file, 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const comments: { line: number; text: string }[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      comments.push({ line: source.getLineAndCharacterOfPosition(scanner.getTokenStart()).line + 1, text: scanner.getTokenText() });
    }
  }
  return comments;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split(path.sep).includes('.gen'))
    .map((f) => path.join(SRC, f));
}

describe('comments in src/', () => {
  it('quote no benchmark figure (ratios, rates, times per record): those live in docs/benchmarks.md', () => {
    const quoted = sourceFiles().flatMap((file) =>
      commentsOf(file)
        .filter((c) => FIGURE.test(c.text))
        .map((c) => `${path.relative(SRC, file)}:${c.line}: ${c.text.match(FIGURE)![0]}`),
    );
    expect(quoted).toEqual([]);
  });

  it('would catch the figures that used to be there', () => {
    expect(FIGURE.test('// 0.36x the plain eachBatch loop')).toBe(true);
    expect(FIGURE.test('/* 134,000 records/s */')).toBe(true);
    expect(FIGURE.test('// half a microsecond, or 0.5 µs')).toBe(true);
    expect(FIGURE.test('// tier 2 of 3, 1m delay')).toBe(false);
  });
});
