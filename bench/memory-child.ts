/**
 * The retry consumer alone, over a tier whose records are all due in an hour: prints its
 * RSS in MB once every partition is paused at its head and a garbage collection ran.
 */
import type { ConsumerDescriptor } from '../src/runtime/descriptor';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import { benchClient } from './clients';
import type { BenchClientName } from './clients';

async function main(): Promise<void> {
  const d = JSON.parse(process.env.BENCH_DESCRIPTOR!) as ConsumerDescriptor;
  const partitions = Number(process.env.BENCH_PARTITIONS);
  const waiting = new Set<number>();
  const consumer = createRetryingConsumer(d, {
    kafka: benchClient(process.env.BENCH_CLIENT as BenchClientName).port(),
    handler: async () => {},
    onEvent: (e) => void (e.type === 'waiting' && waiting.add(e.partition)),
  });
  await consumer.start();
  while (waiting.size < partitions) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 5_000));
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(JSON.stringify({ rssMb: process.memoryUsage().rss / 1024 / 1024 }));
  await consumer.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
