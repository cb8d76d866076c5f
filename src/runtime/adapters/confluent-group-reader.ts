import { KrtError } from '../krt-error';
import { LEGACY_PARK_STATE_FORMAT } from '../park-state';
import type { CommittedOffset } from '../port';
import type { OffsetsAdminLike } from './group-offsets';
import { nativeReadSlots } from './native-read-slots';
import type { ReadSlots } from './native-read-slots';

/** A partition's commit as the client's native layer answers it (src/common.cc ToV8Array): no `offset` when there is none. */
interface NativeCommitted {
  readonly topic: string;
  readonly partition: number;
  readonly offset?: number;
  readonly metadata?: string;
}

/** The client's native consumer (its node-rdkafka `KafkaConsumer`): `committed()` is `rd_kafka_committed`. */
interface NativeConsumerLike {
  committed(partitions: { topic: string; partition: number }[], timeoutMs: number, callback: (error: unknown, committed: readonly (NativeCommitted | Error)[]) => void): unknown;
}

/** The admin over a Confluent consumer's handle: its fetchTopicMetadata answers a list, each topic with its `topicId`. */
export interface ReaderAdminLike extends OffsetsAdminLike {
  fetchTopicMetadata?(o: { topics: string[]; timeout?: number }): Promise<{ name: string; topicId?: unknown }[]>;
}

/** The parts of a Confluent KafkaJS-API consumer the reader uses. */
export interface ReaderConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** An admin over the consumer's own librdkafka handle, connected after the consumer. */
  dependentAdmin(): ReaderAdminLike;
  /** The native consumer under the KafkaJS API (what its own dependentAdmin() uses); set once connected. */
  _getInternalClient(): NativeConsumerLike | undefined;
}

/** How long one read of topic ids may wait (polled-topic-ids.ts: missed, it is read again at the next poll). */
const TOPIC_IDS_TIMEOUT_MS = 2_000;

/** How long one read of the group's commits may wait for the coordinator (the client's admin's time-out). */
export const READ_TIMEOUT_MS = 5_000;

/**
 * A reader of the group's commits and the topics' log starts for the Confluent client: a
 * consumer of the group that never subscribes (so never joins), connected once and kept.
 *
 * Commits are read by the consumer's own `committed()` (librdkafka's `rd_kafka_committed`, an
 * OffsetFetch through the handle's consumer group), not through an admin client: librdkafka
 * (2.15.1) crashed the process in both of an admin's ways to read them. An OffsetFetch answered
 * NOT_COORDINATOR (a broker just started, a coordinator just moved) makes it ask the handle's
 * consumer group to look the coordinator up again, and an admin client's handle has none: SIGSEGV
 * (rdkafka_request.c rd_kafka_handle_OffsetFetch; confluent-kafka-javascript #374). And a
 * ListConsumerGroupOffsets that timed out while the coordinator was away is released twice when
 * it comes back: abort (rdkafka_admin.c rd_kafka_admin_coord_request, rd_kafka_coord_req_fsm).
 * `rd_kafka_committed` takes neither path, and times out cleanly. Its native answer is read, not
 * the KafkaJS layer's, which reads both "no commit" and offset 0 as null.
 *
 * Not the group's running consumer: its reads would wait behind its rebalances, which can wait
 * for the very record that asked. Log starts (ListOffsets, to the partitions' leaders, no
 * coordinator) go through the admin over the same handle.
 *
 * Both kinds of read hold a libuv pool thread until answered, so they take turns with every
 * other reader of the process (`slots`, native-read-slots.ts); one still waiting for its turn
 * when the reader leaves (leave(), at the port's close, or disconnect()) never reaches the client.
 */
export function groupReaderAdmin(reader: ReaderConsumerLike, groupId: string, slots: ReadSlots = nativeReadSlots): OffsetsAdminLike {
  const admin = reader.dependentAdmin();
  // Aborted when the reader leaves: its reads still waiting for a turn give up their places.
  const leaving = new AbortController();
  const leave = () => leaving.abort(new KrtError(`the Confluent reader of group ${groupId} left before its read's turn`));
  const inTurn = <T>(read: () => Promise<T>): Promise<T> => slots.run(read, leaving.signal);
  return {
    leave,
    async connect() {
      await reader.connect();
      try {
        await admin.connect();
      } catch (error) {
        await reader.disconnect().catch(() => undefined);
        throw error;
      }
    },
    async disconnect() {
      leave();
      try {
        await admin.disconnect();
      } finally {
        await reader.disconnect();
      }
    },
    // Never the admin's ListConsumerGroupOffsets: a coordinator request of an admin is what aborted the process.
    fetchOffsets: () => Promise.reject(new KrtError(`the Confluent reader of group ${groupId} reads commits only through its consumer's committed()`)),
    fetchTopicOffsets: (topic) => inTurn(() => admin.fetchTopicOffsets(topic)),
    // Metadata (to any broker, no coordinator) through the same handle, as the log starts are.
    // Short: a read in an outage would hold the reader's line, and the commits read behind it, for the client's 5 s.
    describedTopics: (topics) => inTurn(() => (admin.fetchTopicMetadata === undefined ? Promise.resolve([]) : admin.fetchTopicMetadata({ topics, timeout: TOPIC_IDS_TIMEOUT_MS }))),
    committedOf: (topic, partitions) => inTurn(() => nativeCommitted(reader, topic, partitions)),
  };
}

/**
 * The native answer cuts the last byte of the metadata, taking it for the NUL terminator the
 * Confluent client writes (src/common.cc ToV8Array, `size() - 1`): metadata another client wrote
 * without one comes back a byte short (attack 47: kafkajs's `plain text` read `plain tex`). The
 * runtime's own formats end with a NUL on every client, and behind it an end mark no cut one
 * parses without.
 *
 * A park state of an earlier release (LEGACY_PARK_STATE_FORMAT) written by kafkajs, with no NUL,
 * cannot be read whole on this client (one written on this client with the runtime's NUL comes
 * back whole, a NUL left after the cut, and stands: cutLegacyStateThatHolds): its admin reads
 * metadata as a C string, past the end of librdkafka's copy into the heap (attack 48: a 40-byte
 * state came back with a heap byte after it on every read), and its admin's coordinator request
 * is the one that aborted the process (attack 48 again, when the coordinator went away during
 * the read). So the cut answer is all there is:
 * - a state that holds nothing (its format and its distance, no field after) cut reads at its
 *   commit or as lost, never past its position (a cut distance parses only as `+0`), so the
 *   records since the commit run again, in order, and none is skipped;
 * - a state with any field after its distance (a held key, a parked record, a mark) could read
 *   as another state, or as lost with keys still in retry, whose records would then run out of
 *   order: refused. The group moves to this client once this release has rewritten its states
 *   on kafkajs (docs/runtime.md).
 */
export class LegacyParkStateError extends KrtError {
  constructor(readonly topic: string, readonly partition: number) {
    super(
      `${topic}-${partition} holds a park state of an earlier release (${LEGACY_PARK_STATE_FORMAT}) with more than its position in it (keys in retry, parked records, marks), which @confluentinc/kafka-javascript cannot read whole: ` +
        'run this release on kafkajs (kafkajsPort) until every partition has taken a record, so its state is written again in the current format, then move to confluentPort',
    );
  }
}

/**
 * Whether the native answer is a legacy state cut short with more than its position in it. A NUL
 * left after the cut shows the state came back whole (written with the runtime's NUL, and the
 * client's own after it: releases between the two formats on this client): that one stands.
 */
function cutLegacyStateThatHolds(raw: string): boolean {
  return raw.startsWith(`${LEGACY_PARK_STATE_FORMAT} `) && !raw.endsWith('\0') && raw.slice(LEGACY_PARK_STATE_FORMAT.length + 1).includes(' ');
}

function nativeCommitted(reader: ReaderConsumerLike, topic: string, partitions: number[]): Promise<CommittedOffset[]> {
  const native = reader._getInternalClient();
  if (native === undefined || typeof native.committed !== 'function') {
    return Promise.reject(new KrtError('this @confluentinc/kafka-javascript consumer has no native committed() (the adapter is built for its 1.x KafkaJS API)'));
  }
  return new Promise((resolve, reject) => {
    native.committed(
      partitions.map((partition) => ({ topic, partition })),
      READ_TIMEOUT_MS,
      (error, committed) => {
        if (error) reject(error);
        else {
          try {
            resolve(partitions.map((partition) => committedOffsetOf(committed, topic, partition)));
          } catch (failed) {
            reject(failed);
          }
        }
      },
    );
  });
}

/**
 * One partition's commit from the native answer. A partition's error comes as an Error in its
 * place (naming no partition), so an entry missing from the answer is a failed read, never
 * "no commit": taken for none, the runtime would read the partition as a new log. (librdkafka
 * answers every partition asked for, one the broker left out as no commit; a broker answers
 * every partition asked for.)
 */
function committedOffsetOf(committed: readonly (NativeCommitted | Error)[], topic: string, partition: number): CommittedOffset {
  const found = committed.find((c): c is NativeCommitted => !(c instanceof Error) && c.topic === topic && c.partition === partition);
  if (found === undefined) {
    const error = committed.find((c): c is Error => c instanceof Error);
    throw new KrtError(`could not read the committed offset of ${topic}-${partition}: ${error?.message ?? 'the client answered without it'}`);
  }
  if (found.metadata !== undefined && cutLegacyStateThatHolds(found.metadata)) throw new LegacyParkStateError(topic, partition);
  return {
    partition,
    // No commit is -1 on every client; any other answer stands (kafkajs's -2, a reset it stored itself: group-offsets.ts).
    offset: found.offset === undefined ? '-1' : String(found.offset),
    // Park-by-key writes its state with a C string's NUL terminator.
    metadata: found.metadata?.replace(/\0+$/, '') ?? null,
  };
}
