/**
 * npm run bench: every measurement side by side in one run, on a real broker where
 * Kafka is involved (started here unless KAFKA_BOOTSTRAP_SERVERS is set). Writes
 * bench/results.json, bench/results.md and bench/chart.svg and prints the results.
 *
 * npm run bench -- <section> [...]: those sections alone, merged into the last full
 * run's results (sections: synth, hot-path, overhead, tracing, throughput, precision, memory, dlq, console, outage).
 * Each section keeps when and where it was measured; `--note "<text>"` says what else held of
 * this run (another load on the machine, a change it measures), shown under each of its
 * sections until that section is measured again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startBroker, stopBroker } from '../scripts/kafka/broker';
import { prepareTools } from '../test/helpers/tools';
import { runnableClients } from './clients';
import { benchConsole } from './console';
import { benchDlq } from './dlq';
import { benchHotPath } from './hot-path';
import { benchMemory } from './memory';
import type { OutageResult } from './outage';
import { benchOverhead } from './overhead';
import { benchPrecision } from './precision';
import { writeReport } from './report';
import type { BenchResults, BenchSection } from './report';
import { mergedResults } from './merge-results';
import type { MeasuredFigures } from './merge-results';
import { benchSynth } from './synth';
import { benchThroughput } from './throughput';
import { benchTracing } from './tracing';

const step = (text: string) => process.stderr.write(`[bench] ${text}\n`);

type Section = BenchSection;

/** Each section: whether it needs the broker, what it says while it runs, and how it measures. */
const SECTIONS: Record<Section, { broker: boolean; title: string; run: () => Promise<MeasuredFigures> }> = {
  synth: { broker: false, title: 'synth at scale: 10, 100 and 1,000 consumers against the floor; incremental synth of 100 topology files', run: async () => ({ synth: benchSynth() }) },
  'hot-path': { broker: false, title: 'hot path', run: async () => ({ hotPathOpsPerSecond: benchHotPath().opsPerSecond }) },
  overhead: { broker: false, title: 'per-record overhead of the wrapper on the in-memory broker', run: async () => ({ overhead: await benchOverhead() }) },
  tracing: { broker: false, title: 'per-record cost of tracing: a tracer provider registered against none, on the in-memory broker', run: async () => ({ tracing: await benchTracing() }) },
  throughput: {
    broker: true,
    title: "throughput: each client's fastest plain loop and auto-commit loop against the wrapped consumer at 0/1/10% failing (300,000 records of 512-byte values, best of 2 rounds), and the contrast loops",
    // BENCH_THROUGHPUT_RECORDS and BENCH_THROUGHPUT_ROUNDS shorten the section on a busy machine (the report says how many records).
    run: async () => ({
      throughput: await benchThroughput(Number(process.env.BENCH_THROUGHPUT_RECORDS ?? 300_000), Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 2), undefined, (line) => step(`  ${line}`)),
    }),
  },
  precision: {
    broker: true,
    title: 'delay precision: 10,000 records into a 5 s tier, on each client',
    run: async () => {
      const precision = [];
      for (const client of runnableClients((line) => step(`  ${line}`))) precision.push(await benchPrecision(client.name));
      return { precision };
    },
  },
  memory: {
    broker: true,
    title: 'memory: 1,000 and 100,000 records waiting in a tier, on each client',
    run: async () => {
      const memory = [];
      for (const client of runnableClients((line) => step(`  ${line}`))) memory.push(...(await benchMemory(client.name)));
      return { memory };
    },
  },
  dlq: { broker: true, title: 'DLQ: inspect and replay of 100,000 records, monitor poll with a 2,000,000-offset handled range', run: async () => ({ dlq: await benchDlq() }) },
  console: { broker: true, title: "krt console: a consumer's first page and a dry run over DLQs of 10,000 and 1,000,000 records", run: async () => ({ console: await benchConsole((line) => step(`  ${line}`)) }) },
  outage: { broker: false, title: 'a broker outage under load: 3,000 main records handled, the broker killed for 20 s, on each client (a broker of its own)', run: async () => ({ outage: await benchOutage() }) },
};

const JITI = path.join(__dirname, '..', 'node_modules', '.bin', 'jiti');

/** Each client's outage in a process of its own (bench/outage-child.ts), on a broker this section may kill. */
async function benchOutage(): Promise<OutageResult[]> {
  const dir = path.join(os.tmpdir(), 'krt-bench-outage-kafka');
  await prepareTools(['scripts/tools/confluent.sh']);
  const bootstrapServers = (await startBroker({ dir })).bootstrapServers;
  try {
    return runnableClients((line) => step(`  ${line}`)).map((client) => {
      const out = execFileSync(JITI, [path.join(__dirname, 'outage-child.ts'), JSON.stringify({ client: client.name, brokerDir: dir })], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers },
      });
      return JSON.parse(out.trim().split('\n').pop()!) as OutageResult;
    });
  } finally {
    await stopBroker(dir);
  }
}

const RESULTS_FILE = path.join(__dirname, 'results.json');

/** The sections asked for, and the run's note (`--note <text>`). */
function parsedArgs(argv: readonly string[]): { sections: Section[]; note?: string } {
  const at = argv.indexOf('--note');
  if (at === -1) return { sections: chosenSections(argv) };
  const note = argv[at + 1];
  if (note === undefined || note.startsWith('--')) throw new Error('--note needs a text: npm run bench -- <section> --note "what else held of this run"');
  return { sections: chosenSections([...argv.slice(0, at), ...argv.slice(at + 2)]), note };
}

function chosenSections(args: readonly string[]): Section[] {
  const all = Object.keys(SECTIONS) as Section[];
  const unknown = args.filter((a) => !all.includes(a as Section));
  if (unknown.length > 0) throw new Error(`unknown bench section ${unknown.join(', ')}; the sections are ${all.join(', ')}`);
  if (args.length > 0 && !existsSync(RESULTS_FILE)) throw new Error('a partial run merges into bench/results.json, which is missing: run `npm run bench` once in full');
  return args.length > 0 ? (args as Section[]) : all;
}

/** `npm run bench -- --help`: what it runs and how to choose. */
function usage(): string {
  const sections = (Object.entries(SECTIONS) as [Section, (typeof SECTIONS)[Section]][]).map(([name, s]) => `  ${name.padEnd(10)} ${s.title}${s.broker ? ' (starts a Kafka broker, or uses KAFKA_BOOTSTRAP_SERVERS)' : ''}`);
  return [
    'usage: npm run bench -- [section ...] [--note "text"]',
    '',
    'Runs the benchmarks, writes bench/results.json, bench/results.md and bench/chart.svg, and prints the report',
    '(npm run bench:report renders the last two again from results.json without measuring).',
    'With no section, every section runs; with some, their figures are merged into the last full run.',
    '',
    'sections:',
    ...sections,
    '',
    '  --note "text"  kept with the run in bench/results.json and shown in the report',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(usage());
    return;
  }
  const { sections, note } = parsedArgs(process.argv.slice(2));
  const run = new Date().toISOString().slice(0, 16);
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const needsBroker = sections.some((s) => SECTIONS[s].broker);
  // The Confluent client is built from source when npm did not build it (as the tests do).
  if (needsBroker) await prepareTools(['scripts/tools/confluent.sh']);
  let brokerDir: string | undefined;
  if (needsBroker && !process.env.KAFKA_BOOTSTRAP_SERVERS) {
    step('starting a Kafka broker');
    brokerDir = path.join(os.tmpdir(), 'krt-bench-kafka');
    process.env.KAFKA_BOOTSTRAP_SERVERS = (await startBroker({ dir: brokerDir })).bootstrapServers;
  }
  try {
    let measured: MeasuredFigures = {};
    for (const section of sections) {
      step(SECTIONS[section].title);
      measured = { ...measured, ...(await SECTIONS[section].run()) };
    }
    const previous = sections.length < Object.keys(SECTIONS).length ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults) : undefined;
    const results = mergedResults(previous, measured, sections, { run, machine, ...(note === undefined ? {} : { note }) });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(writeReport(results));
  } finally {
    if (brokerDir) await stopBroker(brokerDir);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
