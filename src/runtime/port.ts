import type { RawHeaders } from './headers';

/**
 * The small KafkaJS-shaped surface the runtime uses. kafkajs and the Confluent client's
 * KafkaJS API both fit it through an adapter; the in-memory broker implements it for
 * tests and the simulator.
 */
export interface PortMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: RawHeaders;
  readonly offset: string;
  /** Epoch ms, as a string (KafkaJS's shape). */
  readonly timestamp: string;
}

export interface EachMessagePayload {
  readonly topic: string;
  readonly partition: number;
  readonly message: PortMessage;
  /**
   * Tells the group coordinator the member is alive (kafkajs heartbeats only between
   * records otherwise; the Confluent client heartbeats on its own thread). Called during
   * long waits on one record: in-place backoff, a DLQ outage.
   */
  readonly heartbeat?: () => Promise<void>;
  /**
   * The id of the topic the record was fetched from (Kafka gives each topic one; a topic
   * deleted and created again gets another), in Kafka's spelling, where the adapter tells it:
   * @platformatic/kafka's fetch responses name topics by id (Fetch v13); the Confluent adapter
   * names the id its admin read last (polled-topic-ids.ts); kafkajs names none. Every record
   * of a payload is of that one id.
   */
  readonly topicId?: string;
}

/**
 * A run of records of one partition, in offset order (kafkajs's and the Confluent
 * client's eachBatch, without auto-resolve and without auto-commit).
 */
export interface EachBatchPayload {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly PortMessage[];
  /**
   * The records up to `offset` are taken: the next fetch of the partition starts after
   * it. Not a commit; records never resolved are fetched again.
   */
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  /** True once the consumer stops or the partition was seeked or lost: leave the rest of the batch. */
  isStale(): boolean;
  /**
   * The partition's high watermark when the batch was fetched (one past its last committed
   * offset), when the client tells it (kafkajs, the Confluent client): a log that ends before
   * a record this member took is not the log it took it from.
   */
  readonly highWatermark?: string;
  /**
   * The id of the topic the records were fetched from (Kafka gives each topic one; a topic
   * deleted and created again gets another), in Kafka's spelling, where the adapter tells it:
   * @platformatic/kafka's fetch responses name topics by id (Fetch v13); the Confluent adapter
   * names the id its admin read last (polled-topic-ids.ts); kafkajs names none. Every record
   * of a payload is of that one id.
   */
  readonly topicId?: string;
}

export type RunOptions =
  | { readonly eachMessage: (payload: EachMessagePayload) => Promise<void>; readonly partitionsConsumedConcurrently?: number }
  | { readonly eachBatch: (payload: EachBatchPayload) => Promise<void>; readonly partitionsConsumedConcurrently?: number };

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: number[];
}

export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** An offset to commit, with the commit metadata Kafka stores beside it (park-by-key keeps its state there). */
export interface OffsetCommit extends TopicPartitionOffset {
  readonly metadata?: string;
}

export interface CommittedOffset {
  readonly partition: number;
  /** `-1` when the group has committed nothing for the partition. */
  readonly offset: string;
  readonly metadata: string | null;
}

export interface ConsumerPort {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  /**
   * Runs with manual commits: the runtime commits records itself. Records (or batches)
   * of one partition always come one at a time; `partitionsConsumedConcurrently`
   * partitions may be in hand at once (1 by default).
   */
  run(options: RunOptions): Promise<void>;
  pause(partitions: TopicPartitions[]): void;
  resume(partitions: TopicPartitions[]): void;
  /**
   * The partition's records delivered after this call are read from `position` on: none
   * fetched before it comes after it (kafkajs drops the rest of a batch and any fetch response
   * of a partition with a seek pending; librdkafka bumps the partition's version barrier at the
   * call, so messages fetched before it are dropped even while the seek itself applies late;
   * the @platformatic/kafka adapter's fetch gate). The runtime still concludes nothing from a
   * seek back until it has shown to take effect (sought-back.ts).
   */
  seek(position: TopicPartitionOffset): void;
  /**
   * Commits in one request. The broker answers per partition: a request refused for one
   * (its metadata too large) may have stored the others, so nothing is assumed of them.
   */
  commitOffsets(offsets: OffsetCommit[]): Promise<void>;
  /** The group's committed offsets and their metadata, read from the broker. */
  committed(topic: string, partitions: number[]): Promise<CommittedOffset[]>;
  /**
   * Each partition's first offset still in the log (retention and delete-records requests
   * move it on). Park-by-key reads it to tell records parked and since deleted from ones still
   * to be read again; a port without it (the tests' doubles) leaves that to the records read.
   */
  logStartOffsets?(topic: string, partitions: number[]): Promise<{ partition: number; offset: string }[]>;
  /**
   * Whether a commit's metadata is stored and read back (kafkajs, the Confluent client; not
   * @platformatic/kafka): the offset committer then stamps its commits as its own.
   */
  readonly carriesCommitMetadata?: boolean;
  /** Calls the listener after each rebalance; paused state may not survive one. */
  onRebalance(listener: () => void): void;
}

export interface OutgoingMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | string | (Buffer | string)[]>;
  /** Absent: the producer's default partitioner picks one (by key). */
  readonly partition?: number;
  /** Epoch ms, as a string (KafkaJS's shape); absent: the producer's clock at send time. */
  readonly timestamp?: string;
}

export interface ProducerPort {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Resolves once every in-sync replica has the records (acks=-1). */
  send(record: { topic: string; messages: OutgoingMessage[] }): Promise<void>;
  /**
   * Several topics in one request, acks=-1: all written, or a rejection. Optional: without
   * it the runtime sends topic by topic.
   */
  sendBatch?(records: { topic: string; messages: OutgoingMessage[] }[]): Promise<void>;
}

export interface ConsumerOptions {
  /**
   * Give one member partition p of every subscribed topic (park-by-key: the member that
   * owns main partition p also owns the tier partitions p its failures go to).
   */
  readonly coPartitioned?: boolean;
  /** Fetch at most this much per partition (a tier's head waits; reading far past it is wasted). */
  readonly maxBytesPerPartition?: number;
  /**
   * Longest wait of a fetch, and of kafkajs's pause when every partition is paused: a
   * resumed tier partition is read again within it.
   */
  readonly maxWaitTimeInMs?: number;
}

export interface KafkaPort {
  consumer(groupId: string, options?: ConsumerOptions): ConsumerPort;
  producer(): ProducerPort;
}
