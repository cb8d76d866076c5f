#!/usr/bin/env node
/**
 * `npm run mutation:so-far [events folder]`: what a mutation run has judged so far, read from
 * the files Stryker's `event-recorder` reporter writes as each mutant is judged
 * (reports/mutation/events by default). Stryker names its surviving mutants only in the report
 * it writes at the end, and on this 2-core machine runs of the larger files were cut short
 * several times with nothing to show; this reads a run in progress, or one cut short.
 *
 * Prints, per file, the mutants judged and how (as Stryker's score counts them: timed out as
 * killed, compile errors left out), then every survivor and mutant without coverage by line.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const folder = process.argv[2] ?? path.join('reports', 'mutation', 'events');
if (!existsSync(folder)) {
  console.error(`no event files in ${folder}: run Stryker with the event-recorder reporter (stryker.config.mjs has it)`);
  process.exit(1);
}

const tested = readdirSync(folder)
  .filter((name) => name.endsWith('-onMutantTested.json'))
  .sort()
  .map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')));
const planned = readdirSync(folder).find((name) => name.endsWith('-onMutationTestingPlanReady.json'));
const plannedCount = planned === undefined ? undefined : JSON.parse(readFileSync(path.join(folder, planned), 'utf8')).mutantPlans?.length;

/** Per file: counts by status, and the mutants that are not killed. */
const byFile = new Map();
for (const mutant of tested) {
  const file = byFile.get(mutant.fileName) ?? { counts: {}, open: [] };
  file.counts[mutant.status] = (file.counts[mutant.status] ?? 0) + 1;
  if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') file.open.push(mutant);
  byFile.set(mutant.fileName, file);
}

console.log(`${tested.length} mutants judged${plannedCount === undefined ? '' : ` of ${plannedCount} planned`}`);
for (const [fileName, { counts, open }] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
  const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const scored = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const score = scored === 0 ? '-' : `${((100 * killed) / scored).toFixed(1)}%`;
  console.log(`\n${path.relative(process.cwd(), fileName)}: ${JSON.stringify(counts)}, score so far ${score}`);
  for (const m of open.sort((a, b) => a.location.start.line - b.location.start.line)) {
    console.log(`  ${m.status} line ${m.location.start.line}: ${m.mutatorName} -> ${JSON.stringify((m.replacement ?? '').slice(0, 100))}`);
  }
}
