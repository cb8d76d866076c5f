import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fillRealisticDlq, freshConsoleBench } from './console-dlq';

export interface ConsoleBenchRow {
  readonly records: number;
  /** The consumer page (fifty records, read from Kafka to the end of the page), from request to the last byte. */
  readonly firstPageMs: number;
  /** The page after it (`?after=0:49`). */
  readonly nextPageMs: number;
  /** CPU time (user and system) of the console process over each page: on a shared machine, wall time includes waiting for a core (absent in older results). */
  readonly firstPageCpuMs?: number;
  readonly nextPageCpuMs?: number;
  /** The counts and groups fragment, loaded after the page: reads the whole DLQ. */
  readonly summaryMs: number;
  /** The console process's RSS before the first request, after a GC. */
  readonly baseRssMb: number;
  /** Its peak RSS over the two pages, the counts and the overview. */
  readonly peakRssMb: number;
  /** `krt dlq inspect --json` of the same DLQ, in a process of its own. */
  readonly inspectMs: number;
  readonly inspectPeakRssMb: number;
  /**
   * Both again with V8's old space capped (`--max-old-space-size`): a process that holds
   * records as it reads runs out of heap, one that holds a page or a fetch finishes within
   * the cap. Each peak RSS, or null when the process ran out of heap (absent in older results).
   */
  readonly capped?: { readonly oldSpaceMb: number; readonly consolePeakRssMb: number | null; readonly inspectPeakRssMb: number | null };
}

/** The old-space cap of the capped runs: a fraction of what a DLQ of 1,000,000 ~512-byte records takes (about 600 MB). */
const CAPPED_OLD_SPACE_MB = 64;

const SIZES = [10_000, 1_000_000];

/** Runs a bench child and parses its JSON; with `nodeFlags`, its stderr is kept for the error a failure throws. */
function child(file: string, env: Record<string, string>, nodeFlags: readonly string[] = []): Record<string, number> {
  const out = execFileSync(process.execPath, ['--expose-gc', ...nodeFlags, path.join(__dirname, '..', 'node_modules', 'jiti', 'lib', 'jiti-cli.mjs'), path.join(__dirname, file)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', nodeFlags.length > 0 ? 'pipe' : 'inherit'],
    env: { ...process.env, ...env },
    maxBuffer: 16 * 2 ** 20,
  });
  return JSON.parse(out) as Record<string, number>;
}

/**
 * krt console and krt dlq inspect over DLQs of 10,000 and 1,000,000 records of ~512-byte
 * values with the runtime's DLQ headers, each in a process of its own, so its RSS is its own.
 */
export async function benchConsole(log: (line: string) => void = () => {}, sizes: readonly number[] = SIZES): Promise<ConsoleBenchRow[]> {
  const rows: ConsoleBenchRow[] = [];
  for (const records of sizes) {
    const { id, consumer } = await freshConsoleBench();
    log(`filling a DLQ with ${records.toLocaleString('en-US')} records of ~512 bytes`);
    await fillRealisticDlq(consumer, records);
    const env = { BENCH_ID: id, BENCH_RECORDS: String(records) };
    const console_ = child('console-child.ts', env);
    log(`${records.toLocaleString('en-US')} records: console first page in ${Math.round(console_.firstPageMs!)} ms (${Math.round(console_.firstPageCpuMs!)} ms of CPU), counts in ${Math.round(console_.summaryMs!)} ms, peak RSS ${Math.round(console_.peakRssMb!)} MB`);
    const inspect = child('inspect-child.ts', env);
    log(`${records.toLocaleString('en-US')} records: inspect in ${Math.round(inspect.inspectMs!)} ms, peak RSS ${Math.round(inspect.peakRssMb!)} MB`);
    const capped = {
      oldSpaceMb: CAPPED_OLD_SPACE_MB,
      consolePeakRssMb: cappedPeakRss('console-child.ts', env),
      inspectPeakRssMb: cappedPeakRss('inspect-child.ts', env),
    };
    log(`${records.toLocaleString('en-US')} records, old space capped at ${CAPPED_OLD_SPACE_MB} MB: console peak RSS ${capped.consolePeakRssMb ?? 'out of heap'}, inspect ${capped.inspectPeakRssMb ?? 'out of heap'}`);
    rows.push({
      records,
      firstPageMs: console_.firstPageMs!,
      nextPageMs: console_.nextPageMs!,
      firstPageCpuMs: console_.firstPageCpuMs!,
      nextPageCpuMs: console_.nextPageCpuMs!,
      summaryMs: console_.summaryMs!,
      baseRssMb: console_.baseRssMb!,
      peakRssMb: console_.peakRssMb!,
      inspectMs: inspect.inspectMs!,
      inspectPeakRssMb: inspect.peakRssMb!,
      capped,
    });
  }
  return rows;
}

/** The child's peak RSS with the old space capped, or null when it ran out of heap (V8 aborts the process). */
function cappedPeakRss(file: string, env: Record<string, string>): number | null {
  try {
    return child(file, env, [`--max-old-space-size=${CAPPED_OLD_SPACE_MB}`]).peakRssMb!;
  } catch (error) {
    if (/heap out of memory|Reached heap limit/i.test(String((error as { stderr?: unknown }).stderr ?? error))) return null;
    throw error;
  }
}
