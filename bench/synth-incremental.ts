/**
 * The incremental rows of the synth section alone, printed as JSON: `jiti
 * bench/synth-incremental.ts [FILES] [CONSUMERS_PER_FILE] [ROUNDS]` (default 100 files of
 * 10 consumers, 3 rounds). KRT_BENCH_DIST=<folder> measures another build of the CLI (a
 * copy of `dist/` made before a change, beside a package.json and templates/), so that
 * before and after run one after the other on the same machine.
 */
import { benchIncremental } from './synth';

const [files = 100, consumers = 10, rounds = 3] = process.argv.slice(2).map(Number);
process.stdout.write(`${JSON.stringify(benchIncremental(files, consumers, rounds), null, 2)}\n`);
