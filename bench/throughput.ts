import type { KafkaMessage } from 'kafkajs';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import { benchKafka, freshTopics, produce } from './kafka';

export interface ThroughputRow {
  readonly variant: string;
  readonly recordsPerSecond: number;
}

const http503 = () => Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
const fails = (id: number, percent: number) => id % 100 < percent;

/** Waits until `done()` reaches `count`; returns records per second from the first to the last. */
async function measure(count: number, done: () => number, firstAt: () => number | undefined): Promise<number> {
  const deadline = Date.now() + 10 * 60_000;
  while (done() < count) {
    if (Date.now() > deadline) throw new Error(`only ${done()} of ${count} records in 10 minutes`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return (count * 1000) / (Date.now() - firstAt()!);
}

/**
 * A plain kafkajs consumer on fresh topics: `work` runs on each record; with
 * `commitEach` the loop commits the record itself, else kafkajs commits after each batch.
 */
async function plainLoop(prefix: string, count: number, commitEach: boolean, work: (message: KafkaMessage) => Promise<void> = async () => {}): Promise<number> {
  const d = await freshTopics(prefix, [3600], 6);
  await produce(d.mainTopic, count);
  const consumer = benchKafka().consumer({ groupId: d.groups.main });
  let done = 0;
  let first: number | undefined;
  await consumer.connect();
  await consumer.subscribe({ topics: [d.mainTopic], fromBeginning: true });
  await consumer.run({
    autoCommit: !commitEach,
    eachMessage: async ({ topic, partition, message }) => {
      first ??= Date.now();
      await work(message);
      if (commitEach) await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      done++;
    },
  });
  const rate = await measure(count, () => done, () => first);
  await consumer.disconnect();
  return rate;
}

/** The bare loop the targets compare with: commit after each record. */
const bare = (count: number) => plainLoop('tp-bare', count, true);

/** The loop most teams write first: kafkajs commits resolved offsets itself, after each batch. */
const bareAutoCommit = (count: number) => plainLoop('tp-auto', count, false);

/** The antipattern: a failing record is retried in the handler with a sleep, blocking its partition. */
const blocking = (count: number, percent: number) =>
  plainLoop('tp-block', count, true, async (message) => {
    const id = Number(message.value!.toString());
    for (let attempt = 1; fails(id, percent) && attempt < 3; attempt++) await new Promise((r) => setTimeout(r, 100 * attempt));
  });

async function wrapped(count: number, percent: number): Promise<number> {
  const d = await freshTopics(`tp-wrap${percent}`, [3600], 6);
  await produce(d.mainTopic, count);
  let done = 0;
  let first: number | undefined;
  const consumer = createRetryingConsumer(d, {
    kafka: kafkajsPort(benchKafka()),
    handler: async (record) => {
      first ??= Date.now();
      if (record.topic === d.mainTopic && fails(Number(record.message.value!.toString()), percent)) throw http503();
    },
    onEvent: (e) => {
      if ((e.type === 'processed' || e.type === 'routed') && e.record.topic === d.mainTopic) done++;
    },
  });
  await consumer.start();
  const rate = await measure(count, () => done, () => first);
  await consumer.stop();
  return rate;
}

/** Side by side, in alternating rounds; the best of the rounds per variant (the least disturbed by the machine). */
export async function benchThroughput(count = 10_000, rounds = 2): Promise<ThroughputRow[]> {
  const variants: [string, () => Promise<number>][] = [
    ['bare kafkajs loop, commit per record', () => bare(count)],
    ['bare kafkajs loop, kafkajs autoCommit after each batch', () => bareAutoCommit(count)],
    ['createRetryingConsumer, 0% failing', () => wrapped(count, 0)],
    ['createRetryingConsumer, 1% failing', () => wrapped(count, 1)],
    ['createRetryingConsumer, 10% failing', () => wrapped(count, 10)],
    ['blocking sleep-and-retry in the handler, 1% failing', () => blocking(count, 1)],
  ];
  const best = new Map<string, number>();
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of variants) best.set(name, Math.max(best.get(name) ?? 0, await run()));
  }
  return variants.map(([variant]) => ({ variant, recordsPerSecond: best.get(variant)! }));
}
