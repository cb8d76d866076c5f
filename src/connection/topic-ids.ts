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

/** kafkaFromEnv, whose admin reports topic ids where the Confluent client is installed: what the DLQ tools connect with. */
export function kafkaReadingTopicIdsFromEnv(env: NodeJS.ProcessEnv = process.env, clientId?: string): Kafka {
  const kafka = kafkaFromEnv(env, clientId);
  return withTopicIds(kafka, confluentTopicIds(connectionFromEnv(env)));
}
