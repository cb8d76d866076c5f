import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mergedResults } from '../bench/merge-results';
import { resultsMarkdown } from '../bench/report';
import type { BenchResults } from '../bench/report';

/**
 * A partial bench run (`npm run bench -- tracing`) used to rewrite bench/results.md from the
 * figures alone, dropping every line that said a section came from another run, on another
 * Node, under load: older figures then read as the latest run's.
 */
const committed = JSON.parse(readFileSync(path.join(__dirname, '..', 'bench', 'results.json'), 'utf8')) as BenchResults;
const laterRun = { run: '2026-12-24T10:00', machine: '2 cores, 24 GiB, Node v24.99.0' };
const sectionText = (markdown: string, title: string) => {
  const start = markdown.indexOf(title);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
};

describe('bench results, section by section', () => {
  it('say under each section measured in another run when, where and with what note', () => {
    const merged = mergedResults(committed, { tracing: committed.tracing }, ['tracing'], laterRun);
    const markdown = resultsMarkdown(merged);
    expect(sectionText(markdown, '## The DLQ tools')).toContain(`Measured ${committed.measured!.dlq!.run} on ${committed.measured!.dlq!.machine}, in another run than the latest: ${committed.measured!.dlq!.note}`);
    expect(sectionText(markdown, '## What tracing costs')).not.toContain('Measured');
  });

  it('keep a section\'s note until that section is measured again, then take the new run\'s', () => {
    const noted = mergedResults(committed, { tracing: committed.tracing }, ['tracing'], { ...laterRun, note: 'a helper ran beside it' });
    expect(sectionText(resultsMarkdown(noted), '## What tracing costs')).toContain('Measured in the latest run: a helper ran beside it.');
    const again = mergedResults(noted, { outage: committed.outage }, ['outage'], { run: '2026-12-25T09:30', machine: laterRun.machine });
    expect(sectionText(resultsMarkdown(again), '## What tracing costs')).toContain('Measured 2026-12-24 10:00 UTC on 2 cores, 24 GiB, Node v24.99.0, in another run than the latest: a helper ran beside it.');
    expect(sectionText(resultsMarkdown(again), '## A broker outage')).not.toContain('Measured');
  });

  it('records every section a full run measures as the latest run\'s', () => {
    const sections = ['synth', 'hot-path', 'overhead', 'tracing', 'throughput', 'precision', 'memory', 'dlq', 'console', 'outage'] as const;
    const full = mergedResults(undefined, committed, sections, laterRun);
    expect(resultsMarkdown(full)).not.toMatch(/^Measured .*(another run|latest run)/m);
  });
});
