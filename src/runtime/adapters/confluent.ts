import type { ConsumerPort, KafkaPort, OffsetCommit, OutgoingMessage, ProducerPort, TopicPartitionOffset, TopicPartitions } from '../port';

import { clientRunOptions } from './client-run';
import { commitConfirmed } from './confirmed-commit';
import type { CommittingConsumerLike } from './confirmed-commit';
import { coPartitionedOnly } from './co-partitioned-only';
import type { AssignedPartition } from './co-partitioned-only';
import type { ClientRunOptions } from './client-run';
import { groupReaderAdmin } from './confluent-group-reader';
import type { ReaderAdminLike, ReaderConsumerLike } from './confluent-group-reader';
import { groupOffsetsReader } from './group-offsets';
import { polledTopicIds } from './polled-topic-ids';
import { seekAgainOnResume } from './seek-again-on-resume';
import { stepsUnderWay } from './steps-under-way';
import { markWorthWaitingOut } from '../commit-patience';
import { confluentCoordinatorAway } from './confluent-commit-refusal';

/**
 * The parts of `new (require('@confluentinc/kafka-javascript').KafkaJS.Kafka)(...)` the
 * adapter uses. Its KafkaJS API takes consumer and producer settings under `kafkaJS`,
 * and librdkafka settings (such as the rebalance callback) beside it.
 */
export interface ConfluentKafkaLike {
  consumer(config: {
    kafkaJS: Record<string, unknown>;
    /** Returning an assignment makes the client assign that instead of the group's. */
    rebalance_cb?: (err: { code?: number } | null, assignment: AssignedPartition[]) => AssignedPartition[] | undefined;
    'js.consumer.max.batch.size'?: number;
    'queued.max.messages.kbytes'?: number;
    'fetch.queue.backoff.ms'?: number;
  }): ConfluentConsumerLike;
  producer(config: { kafkaJS: Record<string, unknown> }): ConfluentProducerLike;
}

interface ConfluentConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[] }): Promise<void>;
  run(r: ClientRunOptions): Promise<void>;
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
  /** The partitions the group gave this member. */
  assignment(): { topic: string; partition: number }[];
  commitOffsets(o: OffsetCommit[]): Promise<void>;
  committed: CommittingConsumerLike['committed'];
  dependentAdmin(): ReaderAdminLike;
  _getInternalClient: ReaderConsumerLike['_getInternalClient'];
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
 * Park-by-key reads the main topic and its tiers in one group, co-partitioned: the member
 * that owns main partition p owns tier partitions p too, so p's state (in the metadata
 * of the commit of p) has one writer. The Confluent client takes no assignor of ours, but
 * librdkafka's range assignor co-partitions topics that have the same members and the
 * same partition count (rdkafka_range_assignor.c, as Kafka's own RangeAssignor), and a
 * park-by-key consumer's tiers have exactly its main topic's partitions (validation). With
 * the client's default (round robin), main p and tier p go to different members, both
 * write p's state, and a tier record runs where the records parked behind its key are not.
 */
const CO_PARTITIONING_ASSIGNOR = 'range';

/** librdkafka's code for a rebalance callback that assigns (revoking is -174). */
const ERR_ASSIGN_PARTITIONS = -175;

export interface ConfluentPortOptions {
  /** Goes under `kafkaJS` of every consumer (for example `sessionTimeout`). */
  readonly consumerConfig?: Record<string, unknown> | undefined;
  /**
   * Called when a park-by-key member was given main and tier partitions that are not
   * co-partitioned (their partition counts differ): those stay unread. By default written
   * to stderr.
   */
  readonly onNotCoPartitioned?: ((message: string) => void) | undefined;
  /**
   * How often each consumer reads its topics' ids (one describeTopics a topic, through its
   * group reader), to tell a topic deleted and created again under it: the client's records
   * name no id, and librdkafka reads the new log on from the old log's position. 10 s by
   * default; 0 reads none.
   */
  readonly topicIdCheckMs?: number | undefined;
}

/** How often a consumer reads its topics' ids by default (ConfluentPortOptions.topicIdCheckMs). */
export const TOPIC_ID_CHECK_MS = 10_000;

/**
 * What `confluentPort` takes: the client's `KafkaJS.Kafka`, as its own declarations type it.
 * Its `consumer` and `producer` take the client's config types (`groupId` required under
 * `kafkaJS`), which the runtime cannot name without importing the optional client, and its
 * consumer's declarations leave out `_getInternalClient`, which the adapter calls to read
 * committed offsets (the client has it at run time). `ConfluentKafkaLike`, the precise shape,
 * refused the real client in every service's type-check; this one accepts any config type and
 * checks the rest of what the adapter calls.
 */
export interface ConfluentKafkaClient {
  consumer(config: never): Omit<ConfluentConsumerLike, '_getInternalClient'>;
  producer(config: never): ConfluentProducerLike;
}

/** Adapts the Confluent client's KafkaJS API to the runtime's port. */
export function confluentPort(client: ConfluentKafkaClient, options: ConfluentPortOptions = {}): KafkaPort {
  // The client takes the configs the adapter builds and has _getInternalClient (see ConfluentKafkaClient).
  const kafka = client as ConfluentKafkaLike;
  const notCoPartitioned = options.onNotCoPartitioned ?? ((message: string) => process.stderr.write(`kafka-retry-topology: ${message}\n`));
  return {
    consumer(groupId, { coPartitioned = false, maxBytesPerPartition, maxWaitTimeInMs } = {}): ConsumerPort {
      const listeners: (() => void)[] = [];
      let subscribed: string[] = [];
      const fetch = { ...(maxBytesPerPartition ? { maxBytesPerPartition } : {}), ...(maxWaitTimeInMs ? { maxWaitTimeInMs } : {}) };
      const consumer = kafka.consumer({
        kafkaJS: {
          ...options.consumerConfig,
          ...fetch,
          ...(coPartitioned ? { partitionAssigners: [CO_PARTITIONING_ASSIGNOR] } : {}),
          groupId,
          autoCommit: false,
          fromBeginning: true,
        },
        'js.consumer.max.batch.size': MAX_BATCH_SIZE,
        ...(maxBytesPerPartition ? { 'queued.max.messages.kbytes': SMALL_FETCH_QUEUE_KBYTES, 'fetch.queue.backoff.ms': maxWaitTimeInMs ?? SMALL_FETCH_QUEUE_BACKOFF_MS } : {}),
        rebalance_cb: (error, assignment) => {
          positions.forget();
          for (const listener of listeners) listener();
          if (!coPartitioned || error?.code !== ERR_ASSIGN_PARTITIONS) return undefined;
          const { kept, dropped } = coPartitionedOnly(assignment, subscribed);
          if (dropped.length === 0) return undefined;
          notCoPartitioned(
            `group ${groupId} gave this member ${dropped.map((a) => `${a.topic}-${a.partition}`).join(', ')} without the same partition of every other topic it reads; ` +
              'they stay unread, as park-by-key needs main partition p and tier partitions p in one member: give the tiers exactly the main topic\'s partitions (krt plan shows the drift)',
          );
          return kept;
        },
      });
      const positions = seekAgainOnResume(consumer);
      // Through a consumer of the group that never joins (confluent-group-reader.ts: librdkafka
      // crashed the process reading them through an admin client), one read at a time.
      const offsets = groupOffsetsReader(() => groupReaderAdmin(kafka.consumer({ kafkaJS: { ...options.consumerConfig, groupId, autoCommit: false } }), groupId), groupId, { oneAtATime: true });
      const steps = stepsUnderWay();
      // A topic created again: each of its partitions this member reads is sought to its start,
      // so a batch of it comes to be judged by its new id (a partition read past its new log's
      // records would deliver none until a record came).
      const ids = polledTopicIds({
        read: (topics) => offsets.topicIds(topics),
        intervalMs: options.topicIdCheckMs ?? TOPIC_ID_CHECK_MS,
        onChange: (topic) => seekToStart(consumer, positions, topic),
      });
      return {
        connect: () => {
          // While the broker is surely there: connected at a read during an outage, the reader
          // would wait out its client's metadata request (30 s) first.
          offsets.open();
          return steps.track(consumer.connect());
        },
        disconnect: async () => {
          ids.stop();
          await steps.settled();
          await consumer.disconnect();
          await offsets.close();
        },
        subscribe: ({ topics }) => consumer.subscribe({ topics: (subscribed = topics) }),
        run: (run) => {
          ids.start(subscribed);
          return steps.track(consumer.run(clientRunOptions(run, ids.idOf)));
        },
        pause: (t) => positions.pause(t),
        resume: (t) => positions.resume(t),
        seek: (s) => positions.seek(s),
        commitOffsets: (o) => commitConfirmed(consumer, o).catch((error: unknown) => Promise.reject(confluentCoordinatorAway(error) ? markWorthWaitingOut(error) : error)),
        committed: (topic, partitions) => offsets.committed(topic, partitions),
        logStartOffsets: (topic, partitions) => offsets.logStarts(topic, partitions),
        carriesCommitMetadata: true,
        onRebalance: (listener) => void listeners.push(listener),
      };
    },
    producer(): ProducerPort {
      const producer = kafka.producer({ kafkaJS: { acks: -1, idempotent: true } });
      const steps = stepsUnderWay();
      return {
        connect: () => steps.track(producer.connect()),
        disconnect: async () => {
          await steps.settled();
          await producer.disconnect();
        },
        send: async (record) => {
          await producer.send(ownCopies(record));
        },
        sendBatch: async (records) => {
          await producer.sendBatch({ topicMessages: records.map(ownCopies) });
        },
      };
    },
  };
}

/**
 * Seeks each partition of `topic` this member reads to its start (a topic created again). One
 * refused (a rebalance under way) is left: its next batch, named by the new id, is judged all the
 * same, and the others are still sought.
 */
function seekToStart(consumer: Pick<ConfluentConsumerLike, 'assignment'>, positions: Pick<ConfluentConsumerLike, 'seek'>, topic: string): void {
  let assigned: { topic: string; partition: number }[];
  try {
    assigned = consumer.assignment();
  } catch {
    return;
  }
  for (const { partition } of assigned.filter((a) => a.topic === topic)) {
    try {
      positions.seek({ topic, partition, offset: '0' });
    } catch {
      // This partition alone: as above.
    }
  }
}

/**
 * The client's send() rewrites the messages it is given (lib/kafkajs/_producer.js: partition,
 * timestamp, and headers converted to librdkafka's list). A message sent again after a refusal
 * (the coalescing producer's one-by-one resend) then had its headers converted twice, a list
 * of objects the native layer cannot write. It gets copies, so the caller's messages stay as made.
 */
function ownCopies(record: { topic: string; messages: OutgoingMessage[] }): { topic: string; messages: OutgoingMessage[] } {
  return { topic: record.topic, messages: record.messages.map((m) => ({ ...m, ...(m.headers ? { headers: { ...m.headers } } : {}) })) };
}
