import { KrtError } from '../krt-error';
import type { CommittedOffset } from '../port';
import { normalTopicId } from '../topic-id';

/** The admin call both clients' KafkaJS APIs share. */
export interface OffsetsAdminLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  fetchOffsets(o: { groupId: string; topics: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: string | null; metadata: string | null; error?: unknown }[] }[]>;
  fetchTopicOffsets(topic: string): Promise<{ partition: number; low?: string }[]>;
  /** Reads these partitions' commits itself (the Confluent reader, confluent-group-reader.ts); without it, fetchOffsets. */
  committedOf?(topic: string, partitions: number[]): Promise<CommittedOffset[]>;
  /** The topics' ids as the client spells them (the Confluent reader's describeTopics); rejects when any topic is unknown. */
  describedTopics?(topics: string[]): Promise<{ name: string; topicId?: unknown }[]>;
  /** Gives up the reads still waiting for a turn (the Confluent reader's, behind other readers' reads): the reader is closing. */
  leave?(): void;
}

export interface GroupOffsetsReaderOptions {
  /**
   * Sends one request at a time; close() waits for the one under way. For the Confluent
   * client, whose reads each hold a thread of Node's libuv pool while they wait (up to their
   * time-out in an outage): side by side they would take the pool from the application's own
   * file, DNS, crypto and zlib work.
   */
  readonly oneAtATime?: boolean;
}

/**
 * Reads a group's committed offsets and metadata, and the topic's log starts, through an admin client of the same
 * credentials, connected on first use. Not through the consumer itself: a kafkajs
 * consumer cannot, and the Confluent consumer's own lookup waits on its group, which can
 * wait on the very record that asked (a rebalance waits for it to finish).
 */
export function groupOffsetsReader(createAdmin: () => OffsetsAdminLike, groupId: string, options: GroupOffsetsReaderOptions = {}) {
  let admin: Promise<OffsetsAdminLike> | undefined;
  let closed = false;
  /** With oneAtATime: the request under way (settled when none), the next waits for it. */
  let underWay: Promise<unknown> = Promise.resolve();
  const connected = () => {
    // A read after close() (a record still running past stop()'s drain deadline) would connect an admin nothing closes.
    if (closed) return Promise.reject(new KrtError(`the consumer of group ${groupId} left its group: its committed offsets are no longer read`));
    return (admin ??= (async () => {
      const client = createAdmin();
      await client.connect();
      return client;
    })().catch((error: unknown) => {
      admin = undefined;
      throw error;
    }));
  };
  /** One request to the admin: as it comes, or (oneAtATime) after the one under way. */
  const request = <T>(send: (client: OffsetsAdminLike) => Promise<T>): Promise<T> => {
    if (options.oneAtATime !== true || closed) return connected().then(send);
    const sent = underWay.then(() => connected().then(send));
    underWay = sent.catch(() => undefined);
    return sent;
  };
  return {
    /** Connects now rather than at the first read (in the line of requests with oneAtATime); a failure is left to the first read to meet again. */
    open(): void {
      request(async () => undefined).catch(() => undefined);
    },
    async committed(topic: string, partitions: number[]): Promise<CommittedOffset[]> {
      return request((client) => (client.committedOf ? client.committedOf(topic, partitions) : fetchedCommits(client, groupId, topic, partitions)));
    },
    /** Each partition's log start (the admin's low watermark); a partition whose answer has none is left out. */
    async logStarts(topic: string, partitions: number[]): Promise<{ partition: number; offset: string }[]> {
      const offsets = await request((client) => client.fetchTopicOffsets(topic));
      return offsets.flatMap((p) => (partitions.includes(p.partition) && /^\d+$/.test(p.low ?? '') ? [{ partition: p.partition, offset: p.low! }] : []));
    },
    /** The topics' ids in Kafka's spelling, in one request (a topic unknown fails it), none where the admin reads none (kafkajs's). */
    async topicIds(topics: readonly string[]): Promise<Map<string, string>> {
      const metadata = await request((client) => (client.describedTopics === undefined ? Promise.resolve([]) : client.describedTopics([...topics])));
      const ids = new Map<string, string>();
      for (const { name, topicId } of metadata) {
        const id = normalTopicId(topicId, name);
        if (id !== undefined && topics.includes(name)) ids.set(name, id);
      }
      return ids;
    },
    async close(): Promise<void> {
      closed = true;
      // Reads still waiting for their turn give up (the connected client's), so close() waits
      // only for one the client is running: its native call is still using its handle.
      void admin?.then((client) => client.leave?.(), () => undefined);
      await underWay;
      const client = await admin?.catch(() => undefined);
      admin = undefined;
      await client?.disconnect();
    },
  };
}

/** The Confluent client's offset of a partition the group has no commit for (librdkafka's RD_KAFKA_OFFSET_INVALID). */
const CONFLUENT_NO_COMMIT = '-1001';

/** A client's error as a sentence: its message (the Confluent client's per-partition errors are plain objects with one). */
const errorText = (error: unknown) => String((error as { message?: unknown }).message ?? error);

/** The partitions' commits through the admin's fetchOffsets (every partition of the topic, then the ones asked). */
async function fetchedCommits(client: OffsetsAdminLike, groupId: string, topic: string, partitions: number[]): Promise<CommittedOffset[]> {
  const [offsets] = await client.fetchOffsets({ groupId, topics: [topic] });
  const asked = (offsets?.partitions ?? []).filter((p) => partitions.includes(p.partition));
  // The Confluent client resolves a partition's error (an ACL being re-applied) as offset
  // -1001 beside it; read as "no commit", it made the runtime take the partition for a new
  // log and run it again. An error is a failed read, tried again by the caller.
  const failed = asked.find((p) => p.error !== undefined && p.error !== null);
  if (failed !== undefined) throw new KrtError(`could not read group ${groupId}'s committed offset of ${topic}-${failed.partition}: ${errorText(failed.error)}`);
  return asked.map((p) => ({
    partition: p.partition,
    // "No commit" is -1 on every client (the Confluent client says -1001, librdkafka's
    // INVALID). Any other answer stands: kafkajs's -2 is a commit it stored itself, a reset to
    // the earliest offset, which park-by-key reads as its state lost (found by attack 40).
    offset: p.offset === null || p.offset === CONFLUENT_NO_COMMIT ? '-1' : p.offset,
    // The Confluent client stores metadata with its C string's NUL terminator.
    metadata: p.metadata?.replace(/\0+$/, '') ?? null,
  }));
}
