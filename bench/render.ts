/** npm run bench:report: renders results.md and chart.svg again from results.json, without measuring. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeReport } from './report';
import type { BenchResults } from './report';

writeReport(JSON.parse(readFileSync(path.join(__dirname, 'results.json'), 'utf8')) as BenchResults);
