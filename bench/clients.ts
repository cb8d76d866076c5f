/**
 * The clients the runtime runs on, as the benchmarks use them: the runtime's port, the
 * plain loop a team writes without it (eachMessage, the client's own auto-commit, default
 * settings), and the client's fastest plain loop (eachBatch, the partitions side by side,
 * auto-commit), the ceiling a wrapper can approach and the baseline of the throughput
 * goals. Every section runs over BENCH_CLIENTS: a client is added by one entry there.
 */
import { ADMIN_USER, passwordOf } from '../scripts/kafka/broker';
import { confluentPort } from '../src/runtime/adapters/confluent';
import { kafkajsPort } from '../src/runtime/adapters/kafkajs';
import { platformaticPort } from '../src/runtime/adapters/platformatic';
import type { PlatformaticKafkaLike, PlatformaticStreamLike } from '../src/runtime/adapters/platformatic';
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
  /** Why this Node cannot run the client, or undefined when it can. */
  readonly unavailable: () => string | undefined;
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
  unavailable: () => undefined,
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
  unavailable: () => undefined,
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

/** @platformatic/kafka's classes: loaded when first asked for, as Node 20 cannot load the module. */
function platformaticModule(): PlatformaticKafkaLike {
  return require('@platformatic/kafka') as PlatformaticKafkaLike;
}

const platformaticConnection = () => ({
  clientId: 'krt-bench',
  bootstrapBrokers: process.env.KAFKA_BOOTSTRAP_SERVERS!.split(','),
  sasl: { mechanism: 'PLAIN', username: ADMIN_USER, password: passwordOf(ADMIN_USER) },
});

/** A plain consumer of the client's one stream over every assigned partition, its own auto-commit on; resolves to its stop. */
async function platformaticStream(topic: string, groupId: string, read: (stream: PlatformaticStreamLike) => void): Promise<() => Promise<void>> {
  // Fetches as large as the runtime's adapter asks for (1 MB a partition): the client's own default
  // fetch (50 MB) holds a whole bench topic, and a rate from the first record would time no fetching.
  const consumer = new (platformaticModule().Consumer)({ ...platformaticConnection(), groupId, autocommit: true, maxBytesPerPartition: 1024 * 1024 });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: true });
  read(stream);
  return async () => {
    await stream.close();
    await consumer.close(true);
  };
}

/**
 * @platformatic/kafka: its consumer is one stream over all assigned partitions, so the loop a
 * team ships awaits each record of it in turn, and the fastest takes each as the stream hands
 * it over, without awaiting (the stream is its batch, all partitions side by side).
 */
const platformatic: BenchClient = {
  name: 'platformatic',
  title: '@platformatic/kafka',
  unavailable: () => (Number(process.versions.node.split('.')[0]) >= 22 ? undefined : `needs Node 22 or newer, this is Node ${process.version}`),
  port: () => platformaticPort(platformaticModule(), { connection: platformaticConnection() }),
  autoCommitLoop: (topic, groupId, work) =>
    platformaticStream(topic, groupId, (stream) => {
      void (async () => {
        for await (const message of stream as unknown as AsyncIterable<PlainRecord>) await work(message);
      })();
    }),
  fastestLoop: (topic, groupId, _partitions, work) => platformaticStream(topic, groupId, (stream) => stream.on('data', (message) => void work(message as unknown as PlainRecord))),
};

/** Every client the runtime has an adapter for. */
export const BENCH_CLIENTS: readonly BenchClient[] = [kafkajs, confluent, platformatic];

/** The clients this Node can run; a section measures these and says which it left out. */
export function runnableClients(log: (line: string) => void = () => undefined): BenchClient[] {
  return BENCH_CLIENTS.filter((client) => {
    const why = client.unavailable();
    if (why !== undefined) log(`${client.title} left out: ${why}`);
    return why === undefined;
  });
}

export function benchClient(name: BenchClientName): BenchClient {
  return BENCH_CLIENTS.find((c) => c.name === name)!;
}
