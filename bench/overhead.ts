/**
 * What the retrying consumer costs per record, in microseconds, on the in-memory broker
 * (no network, so the wrapper's own work is all there is to see): the wrapper against a
 * bare eachBatch loop on the same broker, and the parts of its per-record work timed on
 * their own. `npx jiti bench/overhead.ts` prints it.
 */
import { Counter, Registry } from 'prom-client';
import { CounterCells } from '../src/runtime/counter-cells';
import type { RetryEvent } from '../src/runtime/events';
import { createOffsetCommitter, DEFAULT_COMMIT_POLICY } from '../src/runtime/offset-committer';
import { PartitionProgress } from '../src/runtime/partition-progress';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../src/runtime/router';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { billingDescriptor } from '../test/runtime/descriptor';

export interface OverheadResult {
  readonly records: number;
  readonly perRecordMicros: {
    /** A bare eachBatch loop awaiting a no-op handler per record. */
    readonly bareLoop: number;
    /** createRetryingConsumer with the same handler, no event listener. */
    readonly wrapped: number;
    /** wrapped minus bareLoop: what the wrapper adds per record. */
    readonly wrapperOverhead: number;
    /** createRetryingConsumer with an event listener. */
    readonly wrappedWithListener: number;
    /** Building a `processed` event and handing it to a listener, timed on its own (no listener: nothing is built). */
    readonly events: number;
    /** Counting a success (a counter cell), timed on its own. */
    readonly metrics: number;
    /** For comparison: prom-client's `inc(labels)`, the per-record cost the cells avoid. */
    readonly metricsWithLabelLookup: number;
    /** Marking the record done for the next commit (progress and committer), timed on its own. */
    readonly commitMarking: number;
  };
}

const PARTITIONS = 6;

/** The examples' billing consumer, with no in-place retry (the handler never fails here). */
const descriptor = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 10, maxBackoffMs: 10, jitter: 0 } });

function filledBroker(count: number): MemoryBroker {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.batchSize = 500;
  for (const topic of [descriptor.mainTopic, ...descriptor.tiers.map((t) => t.topic), descriptor.dlqTopic]) broker.createTopic(topic, PARTITIONS);
  const value = Buffer.from('v');
  for (let i = 0; i < count; i++) broker.append(descriptor.mainTopic, { key: null, value, partition: i % PARTITIONS });
  return broker;
}

const noop = async (_record: ConsumedRecord) => {};

async function bareLoop(count: number): Promise<number> {
  const broker = filledBroker(count);
  const consumer = broker.port().consumer(descriptor.groups.main);
  await consumer.connect();
  await consumer.subscribe({ topics: [descriptor.mainTopic] });
  const started = performance.now();
  await consumer.run({
    partitionsConsumedConcurrently: PARTITIONS,
    eachBatch: async (batch) => {
      for (const message of batch.messages) await noop({ topic: batch.topic, partition: batch.partition, message, heartbeat: batch.heartbeat });
      batch.resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    },
  });
  await broker.run();
  return performance.now() - started;
}

async function wrapped(count: number, listener?: (event: RetryEvent) => void): Promise<number> {
  const broker = filledBroker(count);
  const consumer = createRetryingConsumer(descriptor, { kafka: broker.port(), handler: noop, clock: broker.clock, registry: new Registry(), ...(listener ? { onEvent: listener } : {}) });
  const started = performance.now();
  await consumer.start();
  await broker.run();
  const ms = performance.now() - started;
  await consumer.stop();
  if (broker.committedOffset(descriptor.groups.main, descriptor.mainTopic, 0) !== count / PARTITIONS) throw new Error('the wrapped run did not finish every record');
  return ms;
}

function timed(count: number, work: (i: number) => void): number {
  const started = performance.now();
  for (let i = 0; i < count; i++) work(i);
  return performance.now() - started;
}

/** The best of `rounds` (the least disturbed by the machine), in µs per record. */
async function best(rounds: number, count: number, run: () => Promise<number> | number): Promise<number> {
  let min = Infinity;
  for (let r = 0; r < rounds; r++) min = Math.min(min, await run());
  return (min * 1000) / count;
}

export async function benchOverhead(count = 120_000, rounds = 5): Promise<OverheadResult> {
  const bare = await best(rounds, count, () => bareLoop(count));
  const wrap = await best(rounds, count, () => wrapped(count));
  let seen = 0;
  const listen = (event: RetryEvent) => {
    if (event.type === 'processed') seen++;
  };
  const withListener = await best(rounds, count, () => wrapped(count, listen));

  const counter = new Counter({ name: 'overhead_messages_total', help: 'bench', labelNames: ['consumer', 'topic', 'outcome'], registers: [] });
  const cells = new CounterCells<'consumer' | 'topic' | 'outcome'>();
  const cell = cells.cell({ consumer: 'c', topic: 't', outcome: 'success' });
  const metrics = await best(rounds, count, () => timed(count, () => cell.inc()));
  const labelled = await best(rounds, count, () => timed(count, () => counter.inc({ consumer: 'c', topic: 't', outcome: 'success' })));

  const record: ConsumedRecord = { topic: descriptor.mainTopic, partition: 0, message: { key: null, value: null, offset: '0', timestamp: '0' } };
  const events = await best(rounds, count, () =>
    timed(count, () => {
      try {
        listen({ type: 'processed', record, attempt: 1, parked: false });
      } catch {
        // as the consumer does: a throwing listener changes nothing
      }
    }),
  );

  const clock = new VirtualClock(0);
  const broker = filledBroker(0);
  const committer = createOffsetCommitter(() => broker.port().consumer('g'), clock, { ...DEFAULT_COMMIT_POLICY, maxRecords: Number.MAX_SAFE_INTEGER }, () => {});
  const progress = new PartitionProgress(descriptor.mainTopic, 0);
  const marking = await best(rounds, count, () =>
    timed(count, (i) => {
      progress.finish(BigInt(i));
      committer.markProgress(progress);
    }),
  );
  committer.close();
  if (seen === 0) throw new Error('the listener saw no event');

  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    records: count,
    perRecordMicros: {
      bareLoop: round(bare),
      wrapped: round(wrap),
      wrapperOverhead: round(wrap - bare),
      wrappedWithListener: round(withListener),
      events: round(events),
      metrics: round(metrics),
      metricsWithLabelLookup: round(labelled),
      commitMarking: round(marking),
    },
  };
}

// `npx jiti bench/overhead.ts`: this section alone, printed.
if (process.argv[1]?.endsWith('overhead.ts')) {
  benchOverhead().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
