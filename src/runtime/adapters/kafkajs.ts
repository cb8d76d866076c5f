import type { ConsumerPort, KafkaPort, OffsetCommit, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';
import { coPartitionedAssigner } from './co-partition-assigner';
import { clientRunOptions } from './client-run';
import type { ClientRunOptions } from './client-run';
import { groupOffsetsReader } from './group-offsets';
import { confirmedCommits } from './kafkajs-commit';
import { sendEachChecked } from './kafkajs-written';
import type { CommitOffsetsPayload } from './kafkajs-commit';
import type { OffsetsAdminLike } from './group-offsets';
import { stepsUnderWay } from './steps-under-way';
import { restartDelayMs } from './restart-backoff';

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
  on(event: string, listener: (event: { payload: { error: unknown; restart: boolean } }) => void): unknown;
  on(event: string, listener: (event: { payload: CommitOffsetsPayload }) => void): unknown;
  events: { GROUP_JOIN: string; CRASH: string; COMMIT_OFFSETS: string };
}

interface KafkaJsProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; acks: number; messages: OutgoingMessage[] }): Promise<{ partition: number }[]>;
  sendBatch(r: { acks: number; topicMessages: { topic: string; messages: OutgoingMessage[] }[] }): Promise<{ topicName: string; partition: number }[]>;
}


export interface KafkaJsPortOptions {
  /** Goes to every consumer (for example `sessionTimeout`). */
  readonly consumerConfig?: Record<string, unknown> | undefined;
  /**
   * Called when kafkajs stopped a consumer for good (a non-retriable error, such as
   * GROUP_AUTHORIZATION_FAILED while an ACL is re-applied): the adapter runs it again in
   * `restartInMs`. Log it; by default it is written to stderr.
   */
  readonly onCrash?: ((error: unknown, restartInMs: number) => void) | undefined;
}

/**
 * Adapts a kafkajs `Kafka` to the runtime's port: manual commits, acks=-1. kafkajs
 * restarts a crashed consumer only when the cause was retriable; after any other error
 * the adapter runs it again itself (with backoff), so a consumer never stays stopped
 * with nothing said.
 */
export function kafkajsPort(kafka: KafkaJsLike, options: KafkaJsPortOptions = {}): KafkaPort {
  const onCrash =
    options.onCrash ??
    ((error: unknown, restartInMs: number) => process.stderr.write(`kafka-retry-topology: kafkajs stopped a consumer (${error instanceof Error ? error.message : String(error)})${codecAdvice(error)}; running it again in ${restartInMs} ms\n`));
  return {
    consumer(groupId, { coPartitioned = false, maxBytesPerPartition, maxWaitTimeInMs } = {}): ConsumerPort {
      const assigners = coPartitioned ? { partitionAssigners: [coPartitionedAssigner] } : {};
      const fetch = { ...(maxBytesPerPartition ? { maxBytesPerPartition } : {}), ...(maxWaitTimeInMs ? { maxWaitTimeInMs } : {}) };
      const consumer = kafka.consumer({ ...options.consumerConfig, ...fetch, ...assigners, groupId });
      const offsets = groupOffsetsReader(() => kafka.admin(), groupId);
      /** What run() was given, to run the consumer again after kafkajs stopped it. */
      let running: Parameters<KafkaJsConsumerLike['run']>[0] | undefined;
      let disconnected = false;
      let restartTimer: ReturnType<typeof setTimeout> | undefined;
      let restarts = 0;
      const steps = stepsUnderWay();
      const restartLater = (error: unknown) => {
        const delay = restartDelayMs(restarts++);
        onCrash(error, delay);
        restartTimer = setTimeout(() => {
          restartTimer = undefined;
          if (disconnected || running === undefined) return;
          // The subscription outlives kafkajs's crash (it disconnected): connect and run again.
          // stop() may come while the connect waits for the broker: then leave, do not run.
          steps
            .track(consumer.connect().then(() => (disconnected ? consumer.disconnect() : consumer.run(running!))))
            .then(() => (restarts = 0))
            .catch((refused: unknown) => {
              if (!disconnected) restartLater(refused);
            });
        }, delay);
      };
      // kafkajs clears a pending restart at disconnect, but not one already starting (it was
      // waiting for the broker): that one joins the group after stop(). Left again once its
      // runner runs: kafkajs emits GROUP_JOIN before it marks the runner running, and a
      // disconnect made then stops nothing and forgets the runner, which fetches on, a member
      // nothing can leave, and keeps the process alive.
      consumer.on(consumer.events.GROUP_JOIN, () => {
        if (disconnected) setImmediate(() => consumer.disconnect().catch(() => {}));
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (payload.restart || disconnected || running === undefined) return; // kafkajs restarts it itself
        restartLater(payload.error);
      });
      return {
        connect: () => steps.track(consumer.connect()),
        disconnect: async () => {
          disconnected = true;
          if (restartTimer !== undefined) clearTimeout(restartTimer);
          await steps.settled();
          await consumer.disconnect();
          await offsets.close();
        },
        subscribe: (s) => consumer.subscribe(s),
        run: (run) => steps.track(consumer.run((running = { autoCommit: false, ...clientRunOptions(run) }))),
        pause: (t) => consumer.pause(t),
        resume: (t) => consumer.resume(t),
        seek: (s) => consumer.seek(s),
        commitOffsets: confirmedCommits(consumer),
        committed: (topic, partitions) => offsets.committed(topic, partitions),
        logStartOffsets: (topic, partitions) => offsets.logStarts(topic, partitions),
        carriesCommitMetadata: true,
        onRebalance: (listener) => void consumer.on(consumer.events.GROUP_JOIN, listener),
      };
    },
    producer(): ProducerPort {
      // Idempotence keeps a retried send from writing a record twice.
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      const steps = stepsUnderWay();
      return {
        connect: () => steps.track(producer.connect()),
        disconnect: async () => {
          await steps.settled();
          await producer.disconnect();
        },
        send: ({ topic, messages }) => sendEachChecked(async ([one]) => (await producer.send({ topic, acks: -1, messages: [...one!.messages] })).map((w) => ({ topicName: topic, partition: w.partition })), [{ topic, messages }]),
        sendBatch: (records) => sendEachChecked((some) => producer.sendBatch({ acks: -1, topicMessages: some.map((r) => ({ topic: r.topic, messages: [...r.messages] })) }), records),
      };
    },
  };
}

/**
 * kafkajs decodes gzip only: a batch compressed otherwise (a producer's choice, or the
 * broker's or topic's `compression.type`) crashes the consumer on every fetch of that
 * partition, is run again, and crashes again until a codec is registered. Said with each crash.
 */
function codecAdvice(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  const codec = name === 'KafkaJSNotImplemented' ? /^(\w+) compression not implemented/i.exec((error as Error).message)?.[1] : undefined;
  return codec === undefined
    ? ''
    : `: a topic it reads holds ${codec.toLowerCase()}-compressed records, which kafkajs reads only with a codec registered in its CompressionCodecs (see "Compressed topics" in docs/runtime.md)`;
}
