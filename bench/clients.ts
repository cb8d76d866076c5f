/**
 * The clients the runtime runs on, as the benchmarks use them: the runtime's port, the
 * plain loop a team writes without it (eachMessage, the client's own auto-commit, default
 * settings), and the client's fastest plain loop (eachBatch, the partitions side by side,
 * auto-commit), the ceiling a wrapper can approach and the baseline of the throughput
 * goals. Every section runs over BENCH_CLIENTS: a client is added by one entry there.
 */
import { ADMIN_USER } from '../scripts/kafka/broker';
import { confluentPort } from '../src/runtime/adapters/confluent';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import type { KafkaPort } from '../src/runtime/port';
import { confluentKafka } from '../test/helpers/kafka';
import { benchKafka } from './kafka';

/** A client's name in results (results.json keeps it). */
export type BenchClientName = string;

/** A record as the plain loop sees it: enough to decide whether it fails. */
export interface PlainRecord {
  readonly value: Buffer | null;
}

export interface BenchClient {
  readonly name: BenchClientName;
  /** How results and tables name the client. */
  readonly title: string;
  readonly port: () => KafkaPort;
  /** Starts a plain auto-committing eachMessage loop over `topic`; resolves to its stop. */
  readonly autoCommitLoop: (topic: string, groupId: string, work: (record: PlainRecord) => Promise<void>) => Promise<() => Promise<void>>;
  /** Starts the client's fastest plain loop: eachBatch, `partitions` side by side, auto-commit; resolves to its stop. */
  readonly fastestLoop: (topic: string, groupId: string, partitions: number, work: (record: PlainRecord) => Promise<void>) => Promise<() => Promise<void>>;
}

/** Each record of a batch in turn, as a plain eachBatch loop does. */
const eachOf = (work: (record: PlainRecord) => Promise<void>) => async ({ batch }: { batch: { messages: PlainRecord[] } }) => {
  for (const message of batch.messages) await work(message);
};

const kafkajs: BenchClient = {
  name: 'kafkajs',
  title: 'kafkajs',
  port: () => kafkajsPort(benchKafka()),
  async autoCommitLoop(topic, groupId, work) {
    const consumer = benchKafka().consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ autoCommit: true, eachMessage: ({ message }) => work(message) });
    return () => consumer.disconnect();
  },
  async fastestLoop(topic, groupId, partitions, work) {
    const consumer = benchKafka().consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ autoCommit: true, partitionsConsumedConcurrently: partitions, eachBatch: eachOf(work) });
    return () => consumer.disconnect();
  },
};

const confluent: BenchClient = {
  name: 'confluent',
  title: '@confluentinc/kafka-javascript',
  port: () => confluentPort(confluentKafka(ADMIN_USER)),
  async autoCommitLoop(topic, groupId, work) {
    const consumer = confluentKafka(ADMIN_USER).consumer({ kafkaJS: { groupId, fromBeginning: true, autoCommit: true } });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ eachMessage: ({ message }) => work(message) });
    return () => consumer.disconnect();
  },
  async fastestLoop(topic, groupId, partitions, work) {
    // Batches as large as the runtime's adapter asks for (the client's default is 32 records).
    const consumer = confluentKafka(ADMIN_USER).consumer({ kafkaJS: { groupId, fromBeginning: true, autoCommit: true }, 'js.consumer.max.batch.size': 500 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ partitionsConsumedConcurrently: partitions, eachBatch: eachOf(work) });
    return () => consumer.disconnect();
  },
};

export const BENCH_CLIENTS: readonly BenchClient[] = [kafkajs, confluent];

export function benchClient(name: BenchClientName): BenchClient {
  return BENCH_CLIENTS.find((c) => c.name === name)!;
}
