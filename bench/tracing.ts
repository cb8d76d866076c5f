/**
 * What tracing costs per record: the retrying consumer on the in-memory broker (no network,
 * so the runtime's own work is all there is to see) without a tracer provider, and with
 * one registered (every attempt a recorded span, handed to a batch processor whose
 * exporter drops them: the cost of the spans, not of an exporter's network). 512-byte
 * records, 0% and 10% failing (a failure's tier record carries the trace headers), the
 * variants in alternating rounds. `npx jiti bench/tracing.ts` prints it.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../src/runtime/router';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { billingDescriptor } from '../test/runtime/descriptor';
import { VALUE_BYTES } from './throughput';

export interface TracingBenchRow {
  readonly failingPercent: number;
  readonly records: number;
  readonly valueBytes: number;
  /** µs per main-topic record, best of the rounds. */
  readonly untracedMicros: number;
  readonly tracedMicros: number;
}

const PARTITIONS = 6;
const descriptor = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 10, maxBackoffMs: 10, jitter: 0 } });

/** Takes every span and sends it nowhere. */
const discard: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: 0 }),
  shutdown: async () => {},
};

function filledBroker(count: number): MemoryBroker {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.batchSize = 500;
  for (const topic of [descriptor.mainTopic, ...descriptor.tiers.map((t) => t.topic), descriptor.dlqTopic]) broker.createTopic(topic, PARTITIONS);
  const value = Buffer.alloc(VALUE_BYTES, 'v');
  // Each record comes with its producer's trace context, as from a traced service.
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
  for (let i = 0; i < count; i++) broker.append(descriptor.mainTopic, { key: Buffer.from(`order-${i}`), value, partition: i % PARTITIONS, headers });
  return broker;
}

const http503 = () => Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });

/** Milliseconds to finish `count` main records (and the tier records of those failing). */
async function run(count: number, percent: number): Promise<number> {
  const broker = filledBroker(count);
  const handler = async (record: ConsumedRecord) => {
    if (record.topic === descriptor.mainTopic && Number(record.message.offset) % 100 < percent) throw http503();
  };
  const consumer = createRetryingConsumer(descriptor, { kafka: broker.port(), handler, clock: broker.clock, registry: new Registry() });
  const started = performance.now();
  await consumer.start();
  await broker.run();
  const ms = performance.now() - started;
  await consumer.stop();
  if (broker.committedOffset(descriptor.groups.main, descriptor.mainTopic, 0) !== count / PARTITIONS) throw new Error('the run did not finish every record');
  return ms;
}

/** One run with a provider registered for its length, and nothing registered after it. */
async function traced(count: number, percent: number): Promise<number> {
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(discard)] });
  provider.register();
  try {
    return await run(count, percent);
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

export async function benchTracing(count = 60_000, rounds = 3): Promise<TracingBenchRow[]> {
  const rows: TracingBenchRow[] = [];
  for (const percent of [0, 10]) {
    let untraced = Infinity;
    let withProvider = Infinity;
    for (let r = 0; r < rounds; r++) {
      untraced = Math.min(untraced, await run(count, percent));
      withProvider = Math.min(withProvider, await traced(count, percent));
    }
    const micros = (ms: number) => Math.round((ms * 1000 * 1000) / count) / 1000;
    rows.push({ failingPercent: percent, records: count, valueBytes: VALUE_BYTES, untracedMicros: micros(untraced), tracedMicros: micros(withProvider) });
  }
  return rows;
}

// `npx jiti bench/tracing.ts`: this section alone, printed.
if (process.argv[1]?.endsWith('tracing.ts')) {
  benchTracing().then(
    (rows) => console.log(JSON.stringify(rows, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
