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
}

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: number[];
}

export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

export interface ConsumerPort {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  /** Runs with manual commits: the runtime commits each record itself. */
  run(options: { eachMessage: (payload: EachMessagePayload) => Promise<void> }): Promise<void>;
  pause(partitions: TopicPartitions[]): void;
  resume(partitions: TopicPartitions[]): void;
  seek(position: TopicPartitionOffset): void;
  commitOffsets(offsets: TopicPartitionOffset[]): Promise<void>;
  /** Calls the listener after each rebalance; paused state may not survive one. */
  onRebalance(listener: () => void): void;
}

export interface OutgoingMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | string | (Buffer | string)[]>;
  readonly partition: number;
}

export interface ProducerPort {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Resolves once every in-sync replica has the records (acks=-1). */
  send(record: { topic: string; messages: OutgoingMessage[] }): Promise<void>;
}

export interface KafkaPort {
  consumer(groupId: string): ConsumerPort;
  producer(): ProducerPort;
}
