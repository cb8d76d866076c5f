import type { ConsumerPort, EachMessagePayload, KafkaPort, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';

/** The parts of a kafkajs `Kafka` instance the adapter uses (kafkajs itself stays optional). */
export interface KafkaJsLike {
  consumer(config: { groupId: string }): KafkaJsConsumerLike;
  producer(config?: Record<string, unknown>): KafkaJsProducerLike;
}

interface KafkaJsConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(r: { autoCommit: boolean; eachMessage: (p: EachMessagePayload) => Promise<void> }): Promise<void>;
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
  commitOffsets(o: TopicPartitionOffset[]): Promise<void>;
  on(event: string, listener: () => void): unknown;
  events: { GROUP_JOIN: string };
}

interface KafkaJsProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; acks: number; messages: OutgoingMessage[] }): Promise<unknown>;
}

/**
 * Adapts a kafkajs `Kafka` to the runtime's port: manual commits, acks=-1.
 * `consumerConfig` goes to every consumer (for example `sessionTimeout`).
 */
export function kafkajsPort(kafka: KafkaJsLike, options: { consumerConfig?: Record<string, unknown> } = {}): KafkaPort {
  return {
    consumer(groupId: string): ConsumerPort {
      const consumer = kafka.consumer({ ...options.consumerConfig, groupId });
      return {
        connect: () => consumer.connect(),
        disconnect: () => consumer.disconnect(),
        subscribe: (s) => consumer.subscribe(s),
        run: ({ eachMessage }) => consumer.run({ autoCommit: false, eachMessage }),
        pause: (t) => consumer.pause(t),
        resume: (t) => consumer.resume(t),
        seek: (s) => consumer.seek(s),
        commitOffsets: (o) => consumer.commitOffsets(o),
        onRebalance: (listener) => void consumer.on(consumer.events.GROUP_JOIN, listener),
      };
    },
    producer(): ProducerPort {
      // Idempotence keeps a retried send from writing a record twice.
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      return {
        connect: () => producer.connect(),
        disconnect: () => producer.disconnect(),
        send: async ({ topic, messages }) => {
          await producer.send({ topic, acks: -1, messages });
        },
      };
    },
  };
}
