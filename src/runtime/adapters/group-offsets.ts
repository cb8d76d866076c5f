import { KrtError } from '../krt-error';
import type { CommittedOffset } from '../port';

/** The admin call both clients' KafkaJS APIs share. */
export interface OffsetsAdminLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  fetchOffsets(o: { groupId: string; topics: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: string | null; metadata: string | null; error?: unknown }[] }[]>;
  fetchTopicOffsets(topic: string): Promise<{ partition: number; low?: string }[]>;
}

export interface GroupOffsetsReaderOptions {
  /**
   * Sends the admin one request at a time, and disconnects an admin whose request failed at
   * once (before the failure is passed on), the next read connecting a new one; close() waits
   * for the request under way. For the Confluent client (librdkafka 2.15.1): a group-offsets
   * read (ListConsumerGroupOffsets) that times out while the group coordinator is away leaves
   * its coordinator request waiting in the admin, and when the coordinator is back that
   * request releases its handle twice (rdkafka_admin.c rd_kafka_admin_coord_request returns
   * `__DESTROY` for a timed-out request, and rdkafka_coord.c rd_kafka_coord_req_fsm then
   * fails it, whose response handler releases it again): the process aborts
   * (`rd_kafka_enq_once_del_source_return: Assertion eonce->refcnt > 0`). An admin
   * disconnected first fails that request instead, once (rd_kafka_coord_reqs_term). One at a
   * time, as the client itself runs an admin's requests one after the other (each holds the
   * admin's lock, which disconnect() waits for on the event loop): a disconnect then never
   * waits on a request in flight.
   */
  readonly retireAdminOnFailure?: boolean;
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
  /** With retireAdminOnFailure: the request under way (settled when none), the next waits for it. */
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
  /** One request to the admin: as it comes, or (retireAdminOnFailure) after the one under way, its admin disconnected if it fails. */
  const request = <T>(send: (client: OffsetsAdminLike) => Promise<T>): Promise<T> => {
    if (options.retireAdminOnFailure !== true || closed) return connected().then(send);
    const sent = underWay.then(async () => {
      const current = connected();
      const client = await current;
      try {
        return await send(client);
      } catch (error) {
        // At once, in the turn the failure arrived in: the sooner the admin is gone, the
        // smaller the chance the coordinator comes back to a request it left waiting.
        if (admin === current) admin = undefined;
        await client.disconnect().catch(() => undefined);
        throw error;
      }
    });
    underWay = sent.catch(() => undefined);
    return sent;
  };
  return {
    async committed(topic: string, partitions: number[]): Promise<CommittedOffset[]> {
      const [offsets] = await request((client) => client.fetchOffsets({ groupId, topics: [topic] }));
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
    },
    /** Each partition's log start (the admin's low watermark); a partition whose answer has none is left out. */
    async logStarts(topic: string, partitions: number[]): Promise<{ partition: number; offset: string }[]> {
      const offsets = await request((client) => client.fetchTopicOffsets(topic));
      return offsets.flatMap((p) => (partitions.includes(p.partition) && /^\d+$/.test(p.low ?? '') ? [{ partition: p.partition, offset: p.low! }] : []));
    },
    async close(): Promise<void> {
      closed = true;
      // Not while a request is under way (retireAdminOnFailure): its failure disconnects the admin itself.
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
