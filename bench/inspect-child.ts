/**
 * `krt dlq inspect --json` alone in a process, over a DLQ the parent filled: its output is
 * formatted and counted, not kept; prints, as JSON, its time and the peak RSS of this process.
 */
import { inspectDlq } from '../src/cli/dlq-command';
import { consoleBenchTopology } from './console-dlq';
import { benchKafka } from './kafka';
import { rssSampler } from './peak-rss';

async function main(): Promise<void> {
  const records = Number(process.env.BENCH_RECORDS);
  const consumer = consoleBenchTopology(process.env.BENCH_ID!).consumers[0]!;
  let bytes = 0;
  let tail = '';
  const io = { cwd: process.cwd(), stdout: (text: string) => ((bytes += text.length), (tail = text)), stderr: (text: string) => void process.stderr.write(text) };
  (globalThis as { gc?: () => void }).gc?.();
  const baseRssMb = process.memoryUsage.rss() / 2 ** 20;
  const rss = rssSampler();
  const started = performance.now();
  const code = await inspectDlq(io, benchKafka(), consumer, { json: true });
  const ms = performance.now() - started;
  if (code !== 0 || !tail.includes(`"unhandled": ${records},`)) throw new Error(`inspect did not list ${records} records (exit ${code})`);
  process.stdout.write(JSON.stringify({ inspectMs: ms, baseRssMb, peakRssMb: rss.peakMb(), outputMb: bytes / 2 ** 20 }));
  rss.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
