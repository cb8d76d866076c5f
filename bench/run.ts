/**
 * npm run bench: every measurement side by side in one run, on a real broker where
 * Kafka is involved (started here unless KAFKA_BOOTSTRAP_SERVERS is set). Writes
 * bench/results.md and bench/chart.svg and prints the results.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBroker, stopBroker } from '../scripts/kafka/broker';
import { benchDlq } from './dlq';
import { benchHotPath } from './hot-path';
import { benchMemory } from './memory';
import { benchPrecision } from './precision';
import { writeReport } from './report';
import type { BenchResults } from './report';
import { benchSynth } from './synth';
import { benchThroughput } from './throughput';

const step = (text: string) => process.stderr.write(`[bench] ${text}\n`);

async function main(): Promise<void> {
  let brokerDir: string | undefined;
  if (!process.env.KAFKA_BOOTSTRAP_SERVERS) {
    step('starting a Kafka broker');
    brokerDir = path.join(os.tmpdir(), 'krt-bench-kafka');
    process.env.KAFKA_BOOTSTRAP_SERVERS = (await startBroker({ dir: brokerDir })).bootstrapServers;
  }
  try {
    // `npm run bench -- dlq`: the DLQ section alone, merged into the last full run's results.
    if (process.argv[2] === 'dlq') {
      step('DLQ: inspect and replay of 100,000 records, monitor poll with a 2,000,000-offset handled range');
      const previous = JSON.parse(readFileSync(path.join(__dirname, 'results.json'), 'utf8')) as BenchResults;
      const results = { ...previous, dlq: await benchDlq() };
      writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
      process.stdout.write(writeReport(results));
      return;
    }
    step('synth at scale: 10, 100 and 1,000 consumers against the floor; incremental synth of 100 topology files');
    const synth = benchSynth();
    step('hot path');
    const hot = benchHotPath();
    step('throughput: bare loop, wrapped at 0/1/10% failing, blocking retry');
    const throughput = await benchThroughput();
    step('delay precision: 10,000 records into a 5 s tier');
    const precision = await benchPrecision();
    step('memory: 1,000 and 100,000 records waiting in a tier');
    const memory = await benchMemory();
    step('DLQ: inspect and replay of 100,000 records, monitor poll with a 2,000,000-offset handled range');
    const dlq = await benchDlq();
    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      synth,
      throughput,
      precision,
      memory,
      hotPathOpsPerSecond: hot.opsPerSecond,
      dlq,
    };
    writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(writeReport(results));
  } finally {
    if (brokerDir) await stopBroker(brokerDir);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
