import type { ConsumerPort, EachMessagePayload, KafkaPort, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';

/**
 * The parts of `new (require('@confluentinc/kafka-javascript').KafkaJS.Kafka)(...)` the
 * adapter uses. Its KafkaJS API takes consumer and producer settings under `kafkaJS`,
 * and librdkafka settings (such as the rebalance callback) beside it.
 */
export interface ConfluentKafkaLike {
  consumer(config: { kafkaJS: Record<string, unknown>; rebalance_cb?: (err: unknown, assignment: unknown) => void }): ConfluentConsumerLike;
  producer(config: { kafkaJS: Record<string, unknown> }): ConfluentProducerLike;
}

interface ConfluentConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[] }): Promise<void>;
  run(r: { eachMessage: (p: EachMessagePayload) => Promise<void> }): Promise<void>;
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
  commitOffsets(o: TopicPartitionOffset[]): Promise<void>;
}

interface ConfluentProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; messages: OutgoingMessage[] }): Promise<unknown>;
}

/**
 * Adapts the Confluent client's KafkaJS API to the runtime's port. `consumerConfig`
 * goes under `kafkaJS` of every consumer (for example `sessionTimeout`).
 */
export function confluentPort(kafka: ConfluentKafkaLike, options: { consumerConfig?: Record<string, unknown> } = {}): KafkaPort {
  return {
    consumer(groupId: string): ConsumerPort {
      const listeners: (() => void)[] = [];
      const consumer = kafka.consumer({
        kafkaJS: { ...options.consumerConfig, groupId, autoCommit: false, fromBeginning: true },
        rebalance_cb: () => {
          for (const listener of listeners) listener();
        },
      });
      return {
        connect: () => consumer.connect(),
        disconnect: () => consumer.disconnect(),
        subscribe: ({ topics }) => consumer.subscribe({ topics }),
        run: ({ eachMessage }) => consumer.run({ eachMessage }),
        pause: (t) => consumer.pause(t),
        resume: (t) => consumer.resume(t),
        seek: (s) => consumer.seek(s),
        commitOffsets: (o) => consumer.commitOffsets(o),
        onRebalance: (listener) => void listeners.push(listener),
      };
    },
    producer(): ProducerPort {
      const producer = kafka.producer({ kafkaJS: { acks: -1, idempotent: true } });
      return {
        connect: () => producer.connect(),
        disconnect: () => producer.disconnect(),
        send: async (record) => {
          await producer.send(record);
        },
      };
    },
  };
}
