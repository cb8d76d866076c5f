import { csrfToken, newSessionToken, TOKEN_COOKIE } from '../src/console/auth';
import { kafkaConsoleDlq } from '../src/console/kafka-dlq';
import { buildConsoleServer } from '../src/console/server';
import { fillDlq, freshTopology, measured } from './dlq';
import { benchKafka } from './kafka';

export interface ConsoleBenchRow {
  readonly records: number;
  /** The consumer page (counts, groups, the first fifty records), from request to the last byte. */
  readonly firstPageMs: number;
  /** This process's peak RSS while serving it. */
  readonly peakRssMb: number;
  /** RSS before the request, after a GC: what the server holds between requests. */
  readonly baseRssMb: number;
  /** A dry run of the whole DLQ (at most 100 records selected). */
  readonly dryRunMs: number;
}

const SIZES = [10_000, 1_000_000];

/** krt console's first page of a DLQ of 10,000 and of 1,000,000 records, through the real server and session code. */
export async function benchConsole(log: (line: string) => void = () => {}): Promise<ConsoleBenchRow[]> {
  const rows: ConsoleBenchRow[] = [];
  for (const records of SIZES) {
    const topology = await freshTopology();
    const consumer = topology.consumers[0]!;
    log(`filling a DLQ with ${records.toLocaleString('en-US')} records`);
    await fillDlq(consumer, records);
    const token = newSessionToken();
    const app = buildConsoleServer({ topologies: [topology], dlq: kafkaConsoleDlq(benchKafka()), token, allowedHosts: new Set(['localhost:80']), readOnlyReason: () => 'bench' });
    const headers = { host: 'localhost:80', cookie: `${TOKEN_COOKIE}=${token}` };
    try {
      global.gc?.();
      const baseRssMb = process.memoryUsage.rss() / 2 ** 20;
      const page = await measured(() => app.inject({ method: 'GET', url: `/consumers/${consumer.name}`, headers }));
      if (!page.value.body.includes(`id="unhandled">${records}<`)) throw new Error(`the console's page did not count ${records} records`);
      const dryRun = await measured(() =>
        app.inject({ method: 'POST', url: `/consumers/${consumer.name}/dry-run`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: `csrf=${csrfToken(token)}&scope=filter&limit=100` }),
      );
      if (!dryRun.value.body.includes('→ 100 records')) throw new Error('the dry run did not select 100 records');
      rows.push({ records, firstPageMs: page.ms, peakRssMb: Math.max(page.peakRssMb, dryRun.peakRssMb), baseRssMb, dryRunMs: dryRun.ms });
      log(`${records.toLocaleString('en-US')} records: first page in ${Math.round(page.ms)} ms, peak RSS ${Math.round(page.peakRssMb)} MB`);
    } finally {
      await app.close();
    }
  }
  return rows;
}
