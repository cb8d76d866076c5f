import { HEADERS } from '../src/naming/headers';
import { decodeRetryHeaders } from '../src/runtime/headers';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import { benchClient } from './clients';
import type { BenchClientName } from './clients';
import { benchKafka, freshTopics, percentile } from './kafka';

export interface PrecisionResult {
  readonly client: BenchClientName;
  readonly records: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly early: number;
}

/** Records produced at a steady rate into a 5 s tier: how late each starts after its x-due-at. */
export async function benchPrecision(client: BenchClientName, count = 10_000, perSecond = 1_000): Promise<PrecisionResult> {
  const d = await freshTopics(`precision-${client}`, [5], 6);
  const lateness: number[] = [];
  const consumer = createRetryingConsumer(d, {
    kafka: benchClient(client).port(),
    handler: async (record) => {
      lateness.push(Date.now() - decodeRetryHeaders(record.message.headers).dueAt!);
    },
  });
  await consumer.start();
  await new Promise((r) => setTimeout(r, 3_000)); // the groups have joined
  const producer = benchKafka().producer();
  await producer.connect();
  const batch = perSecond / 10;
  for (let sent = 0; sent < count; sent += batch) {
    const tick = Date.now();
    await producer.send({
      topic: d.tiers[0]!.topic,
      acks: -1,
      messages: Array.from({ length: batch }, (_, k) => ({ key: `k${(sent + k) % 97}`, value: String(sent + k), headers: { [HEADERS.dueAt]: String(Date.now() + 5_000) } })),
    });
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - tick))));
  }
  await producer.disconnect();
  const deadline = Date.now() + 120_000;
  while (lateness.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.stop();
  const sorted = [...lateness].sort((a, b) => a - b);
  return { client, records: lateness.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1]!, early: sorted.filter((l) => l < 0).length };
}
