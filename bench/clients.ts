/**
 * The two clients the runtime runs on, as the benchmarks use them: the runtime's port,
 * and the plain loop a team writes without it (eachMessage, the client's own auto-commit,
 * default settings), the baseline every throughput ratio is measured against.
 */
import { ADMIN_USER, passwordOf } from '../scripts/kafka/broker';
import { confluentPort } from '../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../src/runtime/adapters/confluent';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import type { KafkaPort } from '../src/runtime/port';
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

interface ConfluentModule {
  KafkaJS: { Kafka: new (config: unknown) => ConfluentKafkaLike & ConfluentPlain; logLevel: Record<string, number> };
}

/** The Confluent consumer as a plain loop drives it (its KafkaJS API). */
interface ConfluentPlain {
  consumer(config: { kafkaJS: Record<string, unknown> }): {
    connect(): Promise<void>;
    subscribe(s: { topics: string[] }): Promise<void>;
    run(r: { eachMessage: (p: { message: PlainRecord }) => Promise<void> }): Promise<void>;
    disconnect(): Promise<void>;
  };
}

/** The Confluent client, built by scripts/tools/confluent.sh (bench/run.ts runs it first). */
function confluentKafka(): ConfluentKafkaLike & ConfluentPlain {
  let client: ConfluentModule;
  try {
    client = require('@confluentinc/kafka-javascript') as ConfluentModule;
  } catch (error) {
    throw new Error(`@confluentinc/kafka-javascript is not built here (${String(error)}); run bash scripts/tools/confluent.sh`);
  }
  return new client.KafkaJS.Kafka({
    kafkaJS: {
      brokers: process.env.KAFKA_BOOTSTRAP_SERVERS!.split(','),
      sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) },
      ssl: false,
      logLevel: client.KafkaJS.logLevel.NOTHING,
    },
  });
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
  port: () => confluentPort(confluentKafka()),
  async autoCommitLoop(topic, groupId, work) {
    const consumer = confluentKafka().consumer({ kafkaJS: { groupId, fromBeginning: true, autoCommit: true } });
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
