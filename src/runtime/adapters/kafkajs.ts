import type { ConsumerPort, KafkaPort, OffsetCommit, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';
import { UnknownPartitionError } from '../publish-failure';
import { coPartitionedAssigner } from './co-partition-assigner';
import { clientRunOptions } from './client-run';
import type { ClientRunOptions } from './client-run';
import { groupOffsetsReader } from './group-offsets';
import type { OffsetsAdminLike } from './group-offsets';

/** The parts of a kafkajs `Kafka` instance the adapter uses (kafkajs itself stays optional). */
export interface KafkaJsLike {
  consumer(config: { groupId: string; partitionAssigners?: unknown[] }): KafkaJsConsumerLike;
  producer(config?: Record<string, unknown>): KafkaJsProducerLike;
  admin(): OffsetsAdminLike;
}

interface KafkaJsConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(r: ClientRunOptions & { autoCommit: boolean }): Promise<void>;
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
  commitOffsets(o: OffsetCommit[]): Promise<void>;
  on(event: string, listener: () => void): unknown;
  events: { GROUP_JOIN: string };
}

interface KafkaJsProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; acks: number; messages: OutgoingMessage[] }): Promise<{ partition: number }[]>;
  sendBatch(r: { acks: number; topicMessages: { topic: string; messages: OutgoingMessage[] }[] }): Promise<{ topicName: string; partition: number }[]>;
}

/** kafkajs resolves without writing a record whose partition the topic lacks: that would be a lost record. */
function checkWritten(records: { topic: string; messages: OutgoingMessage[] }[], written: { topicName: string; partition: number }[]): void {
  for (const { topic, messages } of records) {
    for (const { partition } of messages) {
      if (partition !== undefined && !written.some((w) => w.topicName === topic && w.partition === partition)) throw new UnknownPartitionError(topic, partition);
    }
  }
}

/**
 * Adapts a kafkajs `Kafka` to the runtime's port: manual commits, acks=-1.
 * `consumerConfig` goes to every consumer (for example `sessionTimeout`).
 */
export function kafkajsPort(kafka: KafkaJsLike, options: { consumerConfig?: Record<string, unknown> } = {}): KafkaPort {
  return {
    consumer(groupId, { coPartitioned = false, maxBytesPerPartition, maxWaitTimeInMs } = {}): ConsumerPort {
      const assigners = coPartitioned ? { partitionAssigners: [coPartitionedAssigner] } : {};
      const fetch = { ...(maxBytesPerPartition ? { maxBytesPerPartition } : {}), ...(maxWaitTimeInMs ? { maxWaitTimeInMs } : {}) };
      const consumer = kafka.consumer({ ...options.consumerConfig, ...fetch, ...assigners, groupId });
      const offsets = groupOffsetsReader(() => kafka.admin(), groupId);
      return {
        connect: () => consumer.connect(),
        disconnect: async () => {
          await consumer.disconnect();
          await offsets.close();
        },
        subscribe: (s) => consumer.subscribe(s),
        run: (run) => consumer.run({ autoCommit: false, ...clientRunOptions(run) }),
        pause: (t) => consumer.pause(t),
        resume: (t) => consumer.resume(t),
        seek: (s) => consumer.seek(s),
        commitOffsets: (o) => consumer.commitOffsets(o),
        committed: (topic, partitions) => offsets.committed(topic, partitions),
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
          const written = await producer.send({ topic, acks: -1, messages });
          checkWritten([{ topic, messages }], written.map((w) => ({ topicName: topic, partition: w.partition })));
        },
        sendBatch: async (records) => checkWritten(records, await producer.sendBatch({ acks: -1, topicMessages: records })),
      };
    },
  };
}
