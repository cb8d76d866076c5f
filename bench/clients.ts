/**
 * The two clients the runtime runs on, as the benchmarks use them: the runtime's port,
 * and the plain loop a team writes without it (eachMessage, the client's own auto-commit,
 * default settings), the baseline every throughput ratio is measured against.
 */
import { ADMIN_USER } from '../scripts/kafka/broker';
import { confluentPort } from '../src/runtime/adapters/confluent';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import type { KafkaPort } from '../src/runtime/port';
import { confluentKafka } from '../test/helpers/kafka';
import { benchKafka } from './kafka';

export type BenchClientName = 'kafkajs' | 'confluent';

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
}

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
};

export const BENCH_CLIENTS: readonly BenchClient[] = [kafkajs, confluent];

export function benchClient(name: BenchClientName): BenchClient {
  return BENCH_CLIENTS.find((c) => c.name === name)!;
}
