/**
 * One throughput variant in a process of its own (see bench/throughput.ts). Takes
 * {"variant":..., "descriptor":...} as its argument and prints {"recordsPerSecond":...}.
 */
import type { ConsumerDescriptor } from '../src/runtime/descriptor';
import { runVariant } from './throughput';
import type { Variant } from './throughput';

const { variant, descriptor } = JSON.parse(process.argv[2]!) as { variant: Variant; descriptor: ConsumerDescriptor };
runVariant(variant, descriptor).then(
  (recordsPerSecond) => {
    process.stdout.write(`\n${JSON.stringify({ recordsPerSecond })}\n`);
    // Clients that linger (the Confluent client's native threads) must not hold the run.
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
