import type { ConsumerPort, KafkaPort, OffsetCommit, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';

import { clientRunOptions } from './client-run';
import type { ClientRunOptions } from './client-run';
import { groupOffsetsReader } from './group-offsets';
import type { OffsetsAdminLike } from './group-offsets';
import { seekAgainOnResume } from './seek-again-on-resume';

/**
 * The parts of `new (require('@confluentinc/kafka-javascript').KafkaJS.Kafka)(...)` the
 * adapter uses. Its KafkaJS API takes consumer and producer settings under `kafkaJS`,
 * and librdkafka settings (such as the rebalance callback) beside it.
 */
export interface ConfluentKafkaLike {
  consumer(config: {
    kafkaJS: Record<string, unknown>;
    rebalance_cb?: (err: unknown, assignment: unknown) => void;
    'js.consumer.max.batch.size'?: number;
    'queued.max.messages.kbytes'?: number;
    'fetch.queue.backoff.ms'?: number;
  }): ConfluentConsumerLike;
  producer(config: { kafkaJS: Record<string, unknown> }): ConfluentProducerLike;
  admin(): OffsetsAdminLike;
}

interface ConfluentConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[] }): Promise<void>;
  run(r: ClientRunOptions): Promise<void>;
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
  commitOffsets(o: OffsetCommit[]): Promise<void>;
}

interface ConfluentProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; messages: OutgoingMessage[] }): Promise<unknown>;
  sendBatch(r: { topicMessages: { topic: string; messages: OutgoingMessage[] }[] }): Promise<unknown>;
}

/**
 * Most records per eachBatch call. The client's default (32) makes a fast handler pay
 * the batch overhead every 32 records; unresolved records of a batch are fetched again.
 */
const MAX_BATCH_SIZE = 500;

/**
 * What a consumer that asked for small fetches (a tier consumer) keeps prefetched, in
 * KiB for the whole consumer (librdkafka bounds its one consumer queue, not each
 * partition). Unbounded, librdkafka fills up to 64 MiB before the partitions pause at
 * their heads, and that native memory stays: RSS with 100,000 records waiting was 8-12%
 * above a shallow tier's. The client's KafkaJS layer sets its own default for the size
 * of one fetch after ours, so the queue bound is what holds here.
 */
const SMALL_FETCH_QUEUE_KBYTES = 1024;

/**
 * A partition whose fetch finds the queue over that bound is fetched again only after
 * this backoff (librdkafka's default is a second): as short as the fetch wait, or a due
 * tier partition resumed while another drains would start up to a second late.
 */
const SMALL_FETCH_QUEUE_BACKOFF_MS = 100;

/**
 * Park-by-key reads the main topic and the tiers in one co-partitioned group. With the
 * Confluent client's KafkaJS API (1.x) such a consumer, after a member was killed,
 * starved some partitions and skipped tier records it had never delivered: a lost
 * record. Until that is solved, park-by-key consumers run on kafkajs.
 */
export const PARK_BY_KEY_UNSUPPORTED =
  'park-by-key ordering does not run on the Confluent client yet: in one group that reads the main topic and the tiers it skipped records after a member died; run this consumer with kafkajsPort';

/**
 * Adapts the Confluent client's KafkaJS API to the runtime's port. `consumerConfig`
 * goes under `kafkaJS` of every consumer (for example `sessionTimeout`).
 */
export function confluentPort(kafka: ConfluentKafkaLike, options: { consumerConfig?: Record<string, unknown> } = {}): KafkaPort {
  return {
    consumer(groupId, { coPartitioned = false, maxBytesPerPartition, maxWaitTimeInMs } = {}): ConsumerPort {
      if (coPartitioned) throw new Error(PARK_BY_KEY_UNSUPPORTED);
      const listeners: (() => void)[] = [];
      const fetch = { ...(maxBytesPerPartition ? { maxBytesPerPartition } : {}), ...(maxWaitTimeInMs ? { maxWaitTimeInMs } : {}) };
      const consumer = kafka.consumer({
        kafkaJS: { ...options.consumerConfig, ...fetch, groupId, autoCommit: false, fromBeginning: true },
        'js.consumer.max.batch.size': MAX_BATCH_SIZE,
        ...(maxBytesPerPartition ? { 'queued.max.messages.kbytes': SMALL_FETCH_QUEUE_KBYTES, 'fetch.queue.backoff.ms': maxWaitTimeInMs ?? SMALL_FETCH_QUEUE_BACKOFF_MS } : {}),
        rebalance_cb: () => {
          positions.forget();
          for (const listener of listeners) listener();
        },
      });
      const positions = seekAgainOnResume(consumer);
      const offsets = groupOffsetsReader(() => kafka.admin(), groupId);
      return {
        connect: () => consumer.connect(),
        disconnect: async () => {
          await consumer.disconnect();
          await offsets.close();
        },
        subscribe: ({ topics }) => consumer.subscribe({ topics }),
        run: (run) => consumer.run(clientRunOptions(run)),
        pause: (t) => positions.pause(t),
        resume: (t) => positions.resume(t),
        seek: (s) => positions.seek(s),
        commitOffsets: (o) => consumer.commitOffsets(o),
        committed: (topic, partitions) => offsets.committed(topic, partitions),
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
        sendBatch: async (records) => {
          await producer.sendBatch({ topicMessages: records });
        },
      };
    },
  };
}
