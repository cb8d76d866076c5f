/**
 * A quick side-by-side for issue #15: the autoCommit eachMessage loop against
 * createRetryingConsumer at 0% and 1% failing, on kafkajs and on the Confluent client,
 * 6 partitions. `npx jiti bench/throughput-probe.ts [records] [rounds]`; starts a broker
 * unless KAFKA_BOOTSTRAP_SERVERS is set.
 */
import os from 'node:os';
import path from 'node:path';
import { ADMIN_USER, passwordOf, startBroker, stopBroker } from '../scripts/kafka/broker';
import { confluentPort } from '../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../src/runtime/adapters/confluent';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import type { KafkaPort } from '../src/runtime/port';
import { benchKafka, freshTopics, produce } from './kafka';

const http503 = () => Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
const fails = (id: number, percent: number) => id % 100 < percent;

interface ConfluentModule {
  KafkaJS: { Kafka: new (config: unknown) => ConfluentKafkaLike & { consumer(c: unknown): any }; logLevel: Record<string, number> };
}

function confluent(): ConfluentKafkaLike & { consumer(c: unknown): any } {
  const client = require('@confluentinc/kafka-javascript') as ConfluentModule;
  return new client.KafkaJS.Kafka({
    kafkaJS: { brokers: process.env.KAFKA_BOOTSTRAP_SERVERS!.split(','), sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) }, ssl: false, logLevel: client.KafkaJS.logLevel.NOTHING },
  });
}

async function measure(count: number, done: () => number, firstAt: () => number | undefined): Promise<number> {
  const deadline = Date.now() + 5 * 60_000;
  while (done() < count) {
    if (Date.now() > deadline) throw new Error(`only ${done()} of ${count} records`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return (count * 1000) / (Date.now() - firstAt()!);
}

async function autoCommitLoop(client: 'kafkajs' | 'confluent', count: number): Promise<number> {
  const d = await freshTopics(`probe-auto-${client}`, [3600], 6);
  await produce(d.mainTopic, count);
  let done = 0;
  let first: number | undefined;
  const eachMessage = async () => {
    first ??= Date.now();
    done++;
  };
  const consumer =
    client === 'kafkajs' ? benchKafka().consumer({ groupId: d.groups.main }) : confluent().consumer({ kafkaJS: { groupId: d.groups.main, autoCommit: true, fromBeginning: true } });
  await consumer.connect();
  await consumer.subscribe({ topics: [d.mainTopic], ...(client === 'kafkajs' ? { fromBeginning: true } : {}) });
  await consumer.run({ ...(client === 'kafkajs' ? { autoCommit: true } : {}), eachMessage });
  const rate = await measure(count, () => done, () => first);
  await consumer.disconnect();
  return rate;
}

async function wrapped(client: 'kafkajs' | 'confluent', count: number, percent: number): Promise<number> {
  const d = await freshTopics(`probe-wrap${percent}-${client}`, [3600], 6);
  await produce(d.mainTopic, count);
  let done = 0;
  let first: number | undefined;
  const kafka: KafkaPort = client === 'kafkajs' ? kafkajsPort(benchKafka()) : confluentPort(confluent());
  const consumer = createRetryingConsumer(d, {
    kafka,
    ...(process.env.PROBE_CONCURRENCY ? { partitionsConsumedConcurrently: Number(process.env.PROBE_CONCURRENCY) } : {}),
    handler: async (record) => {
      first ??= Date.now();
      if (record.topic === d.mainTopic && fails(Number(record.message.value!.toString()), percent)) throw http503();
    },
    onEvent: (e) => {
      if ((e.type === 'processed' || e.type === 'routed') && e.record.topic === d.mainTopic) done++;
      if (e.type === 'processed') lastProcessed = Date.now();
      if (e.type === 'routed') lastRouted = Date.now();
    },
  });
  let lastProcessed = 0;
  let lastRouted = 0;
  await consumer.start();
  const rate = await measure(count, () => done, () => first);
  if (process.env.PROBE_DEBUG) console.log(`${percent}%: last processed at +${lastProcessed - first!} ms, last routed at +${lastRouted - first!} ms`);
  await consumer.stop();
  return rate;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100_000);
  const rounds = Number(process.argv[3] ?? 1);
  const clients = (process.argv[4] ?? 'kafkajs,confluent').split(',') as ('kafkajs' | 'confluent')[];
  let dir: string | undefined;
  if (!process.env.KAFKA_BOOTSTRAP_SERVERS) {
    dir = path.join(os.tmpdir(), 'krt-probe-kafka');
    process.env.KAFKA_BOOTSTRAP_SERVERS = (await startBroker({ dir })).bootstrapServers;
  }
  try {
    for (const client of clients) {
      const best = { auto: 0, w0: 0, w1: 0 };
      for (let r = 0; r < rounds; r++) {
        // PROBE_ONLY=w1 (say) runs one variant, for a profile.
        const only = process.env.PROBE_ONLY;
        if (!only || only === 'auto') best.auto = Math.max(best.auto, await autoCommitLoop(client, count));
        if (!only || only === 'w0') best.w0 = Math.max(best.w0, await wrapped(client, count, 0));
        if (!only || only === 'w1') best.w1 = Math.max(best.w1, await wrapped(client, count, 1));
      }
      const f = (n: number) => Math.round(n).toLocaleString('en');
      console.log(`${client}: autoCommit ${f(best.auto)}/s, wrapped 0% ${f(best.w0)}/s (${(best.w0 / best.auto).toFixed(2)}x), 1% ${f(best.w1)}/s (${(best.w1 / best.auto).toFixed(2)}x)`);
    }
  } finally {
    if (dir) await stopBroker(dir);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
