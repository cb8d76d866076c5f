/**
 * krt console alone in a process, over a DLQ the parent filled: prints, as JSON, the time to
 * the first page (and its CPU time), to the next page, to the counts and groups, and the peak RSS of this process.
 */
import { newSessionToken, sessionCookieHeader } from '../src/console/auth';
import { kafkaConsoleDlq } from '../src/console/kafka-dlq';
import { buildConsoleServer } from '../src/console/server';
import { consoleBenchTopology } from './console-dlq';
import { benchKafka } from './kafka';
import { rssSampler } from './peak-rss';

async function main(): Promise<void> {
  const records = Number(process.env.BENCH_RECORDS);
  const topology = consoleBenchTopology(process.env.BENCH_ID!);
  const consumer = topology.consumers[0]!;
  const token = newSessionToken();
  const app = buildConsoleServer({ topologies: [topology], dlq: kafkaConsoleDlq(benchKafka()), token, allowedHosts: new Set(['localhost:80']), readOnlyReason: () => 'bench' });
  const headers = { host: 'localhost:80', cookie: sessionCookieHeader(token) };
  const get = async (url: string) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const response = await app.inject({ method: 'GET', url, headers });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    const used = process.cpuUsage(cpu);
    return { body: response.body, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
  };
  (globalThis as { gc?: () => void }).gc?.();
  const baseRssMb = process.memoryUsage.rss() / 2 ** 20;
  const rss = rssSampler();
  const first = await get(`/consumers/${consumer.name}`);
  if (!first.body.includes('>50 records<')) throw new Error(`the first page did not show fifty records: ${first.body.slice(0, 500)}`);
  const next = await get(`/consumers/${consumer.name}?after=0%3A49`);
  const summary = await get(`/consumers/${consumer.name}/summary`);
  if (!summary.body.includes(`id="unhandled">${records}<`)) throw new Error(`the summary did not count ${records} records`);
  const overview = await get('/');
  process.stdout.write(JSON.stringify({ firstPageMs: first.ms, nextPageMs: next.ms, firstPageCpuMs: first.cpuMs, nextPageCpuMs: next.cpuMs, summaryMs: summary.ms, overviewMs: overview.ms, baseRssMb, peakRssMb: rss.peakMb() }));
  rss.stop();
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
