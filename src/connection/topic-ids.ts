import type { Kafka } from 'kafkajs';
import { connectionFromEnv, kafkaFromEnv } from './kafka-connection';
import type { ConnectionSettings } from './kafka-connection';

/** Reads a topic's id (base64, as Kafka's tools print it); fails where the read fails. */
export type TopicIdReader = (topic: string) => Promise<string | undefined>;

/** The parts of the Confluent client's KafkaJS API admin this reads. */
interface ConfluentClient {
  readonly KafkaJS: {
    readonly Kafka: new (config: unknown) => {
      admin(): {
        connect(): Promise<void>;
        disconnect(): Promise<void>;
        fetchTopicMetadata(options: { topics: string[] }): Promise<{ name: string; topicId?: { base64?: string; base64str?: string } }[]>;
      };
    };
    readonly logLevel: { readonly NOTHING: number };
  };
}

/** The Confluent client where it is installed and loads on this Node (an optional dependency whose native build may be missing), else undefined. */
function loadConfluent(): ConfluentClient | undefined {
  try {
    return require('@confluentinc/kafka-javascript') as ConfluentClient;
  } catch {
    return undefined;
  }
}

/**
 * Topic ids read through the Confluent client (its librdkafka sends Metadata with topic ids;
 * kafkajs 2.2.4 does not), with the connection the command uses; undefined where that client
 * is not installed. Each read is one short-lived admin connection: a command reads an id at
 * open and before each step's publish and commit, and keeps no second client open.
 */
export function confluentTopicIds(connection: ConnectionSettings): TopicIdReader | undefined {
  const client = loadConfluent();
  if (client === undefined) return undefined;
  const config = { kafkaJS: { brokers: connection.brokers, ssl: connection.ssl, sasl: { ...connection.sasl }, logLevel: client.KafkaJS.logLevel.NOTHING } };
  return async (topic) => {
    const admin = new client.KafkaJS.Kafka(config).admin();
    await admin.connect();
    try {
      const [described] = await admin.fetchTopicMetadata({ topics: [topic] });
      // `base64` in 1.10.1 (its typings say `base64str`).
      return described?.topicId?.base64 ?? described?.topicId?.base64str;
    } finally {
      await admin.disconnect();
    }
  };
}

/**
 * The kafkajs client with an admin whose fetchTopicMetadata reports each topic's `topicId`
 * as `read` gives it (src/dlq/topic-id.ts reads it there); the client itself where there is
 * no reader.
 */
export function withTopicIds(kafka: Kafka, read: TopicIdReader | undefined): Kafka {
  if (read === undefined) return kafka;
  const admin: Kafka['admin'] = (config) => {
    const inner = kafka.admin(config);
    return {
      ...inner,
      fetchTopicMetadata: async (options) => {
        const { topics } = await inner.fetchTopicMetadata(options);
        // Only the topics asked for by name: an answer about every topic (none named) would cost a connection each.
        const asked = new Set(options?.topics ?? []);
        return { topics: await Promise.all(topics.map(async (t) => (asked.has(t.name) ? { ...t, topicId: await read(t.name) } : t))) };
      },
    };
  };
  return { producer: (config) => kafka.producer(config), consumer: (config) => kafka.consumer(config), admin, logger: () => kafka.logger() } as Kafka;
}

/**
 * The reader, saying once through `notice` that a read failed: where the Confluent client loads
 * but cannot connect where kafkajs can (a CA given to Node alone, through NODE_EXTRA_CA_CERTS),
 * a session opens without ids and tells a DLQ created again by offsets and marks alone, and
 * its open waits out the client's metadata timeout: the operator should know why.
 */
export function sayingFirstFailure(read: TopicIdReader, notice: (error: unknown) => void): TopicIdReader {
  let told = false;
  return async (topic) => {
    try {
      return await read(topic);
    } catch (error) {
      if (!told) notice(error);
      told = true;
      throw error;
    }
  };
}

/**
 * kafkaFromEnv, whose admin reports topic ids where the Confluent client is installed: what the
 * DLQ tools and `krt monitor` connect with. `notice` hears of the first id read that failed.
 */
export function kafkaReadingTopicIdsFromEnv(env: NodeJS.ProcessEnv = process.env, clientId?: string, notice?: (message: string) => void): Kafka {
  const kafka = kafkaFromEnv(env, clientId);
  const read = confluentTopicIds(connectionFromEnv(env));
  const told = read === undefined || notice === undefined ? read : sayingFirstFailure(read, (error) => notice(idsOffNotice(error)));
  return withTopicIds(kafka, told);
}

function idsOffNotice(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `krt: could not read a topic id through @confluentinc/kafka-javascript (${reason}); a DLQ deleted and created again is told by its offsets and records alone until it can (see "A DLQ topic deleted and created again" in docs/dlq-tools.md)\n`;
}
