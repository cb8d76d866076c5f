/**
 * Per-partition pause and seek over @platformatic/kafka 2.12, whose consumer is one
 * stream over every assigned partition: the stream can only pause as a whole, and has no
 * seek. Its fetch loop calls the consumer's public `fetch()` with every assigned partition
 * and the offset it holds for each in `stream.offsetsToFetch`, then moves that offset past
 * the records of the response. The gate wraps that `fetch()`:
 *
 * - a partition that may not be fetched (paused, or records of it still queued) is left
 *   out of the request, so the broker sends none of its records;
 * - a partition paused or sought after the request went out has its records cut from the
 *   response, so the stream neither delivers them nor moves its offset past the sought one;
 * - the stream pushes a response's records synchronously, and a handler can pause or seek
 *   a partition in the middle of that push (it runs from the first record): `stale()`
 *   tells the records pushed after it apart, and once the push ends (the stream had set its
 *   offset past the whole response first) the partition's offset is put back to the seek
 *   made during the push, or else to the first record not delivered, so none is skipped;
 * - a request whose partitions cannot be named (the gate's metadata lookup failed) is not
 *   sent: it comes back empty after the fetch wait and the stream asks again from the
 *   offsets it holds (an error would end the stream, and the adapter would start over);
 * - a request with no partition left is held until a partition may be fetched again (or
 *   the fetch wait ends), so a stream whose partitions all wait does not spin;
 * - the stream's records carry no topic id, but the response names each topic by its id
 *   (Fetch v13 on; older versions put the name there): during the push `topicIdNow()` tells
 *   the id of the response being pushed, so a handler can tell a topic created again.
 *
 * A seek writes `offsetsToFetch`, which the stream reads for its next request.
 */

import { TopicIds } from '../log-ids';
import { normalTopicId } from '../topic-id';

/** The request `MessagesStream` builds for one broker (its fields that the gate reads). */
export interface GatedFetchOptions {
  readonly maxWaitTime?: number;
  readonly topics: readonly { readonly topicId: string; readonly partitions: readonly { readonly partition: number }[] }[];
}

/** The response's fields the gate rewrites: records of a partition, per topic id. */
export interface GatedFetchResponse {
  readonly responses: readonly { readonly topicId: string; readonly partitions: { readonly partitionIndex: number; records?: unknown }[] }[];
}

export type FetchCallback = (error: Error | null, response?: GatedFetchResponse) => void;

/** The consumer's calls the gate wraps and uses. */
export interface FetchingConsumer {
  fetch(options: GatedFetchOptions, callback: FetchCallback): void;
  metadata(options: { topics: string[] }, callback: (error: Error | null, metadata?: { topics: Map<string, { id: string; partitionsCount?: number }> }) => void): void;
}

/** The stream's fetch positions, keyed `topic:partition` as the stream keys them. */
export interface FetchPositions {
  readonly offsetsToFetch: Map<string, bigint>;
}

export interface FetchGate {
  /** Whether `topic:partition` may be fetched now; called at every request. */
  setPolicy(fetchable: (topic: string, partition: number) => boolean): void;
  /** Records of this partition fetched before now are not delivered (a pause, a seek, a rebalance). */
  invalidate(topic: string, partition: number): void;
  invalidateAll(): void;
  /**
   * Whether a record the stream pushes now comes from a response fetched before its
   * partition's last invalidation. Such a record is not delivered and is read again: once
   * the push ends, `positions` go back to it (unless the partition was sought since).
   */
  stale(positions: FetchPositions, topic: string, partition: number, offset: bigint): boolean;
  /**
   * The id of `topic` in the response the stream is pushing now, in Kafka's spelling, read
   * by the stream's 'data' listener (the push is synchronous); undefined outside a push, or
   * where the response names the topic by its name (Fetch before v13) or by the zero id.
   */
  topicIdNow(topic: string): string | undefined;
  /** The stream reads this partition from `offset` on. */
  seek(positions: FetchPositions, topic: string, partition: number, offset: bigint): void;
  /** A partition may be fetchable again: a held request goes out now. */
  wake(): void;
  /** Puts the consumer's own fetch back. */
  restore(): void;
}

/** How long a request with every partition left out is held when the stream set no fetch wait. */
const DEFAULT_HOLD_MS = 500;

/**
 * `onMetadata` sees the topics' metadata of every lookup the gate makes (the partition count
 * watch). `onTopicIdChange` is told, before the push of a response, that it names a topic by
 * another id than the responses before it (the topic deleted and created again), records or
 * not: a partition whose position is the new log's end, or that read nothing under the old id,
 * gives the runtime no record to tell the new log by (h147). An id since replaced (an older
 * response) is no change.
 */
export function createFetchGate(
  consumer: FetchingConsumer,
  topics: () => string[],
  onMetadata: (topics: Map<string, { id: string; partitionsCount?: number }>) => void = () => undefined,
  onTopicIdChange: (topic: string) => void = () => undefined,
): FetchGate {
  const original = consumer.fetch;
  let policy: (topic: string, partition: number) => boolean = () => true;
  /** A counter that moves at every invalidation; each partition remembers its last. */
  let clock = 0;
  const invalidatedAt = new Map<string, number>();
  let allInvalidatedAt = 0;
  const held = new Set<() => void>();
  /** The clock when the response the stream is pushing now was requested; undefined outside a push. */
  let pushing: number | undefined;
  /** Each topic's id in the response being pushed now (empty outside a push). */
  const pushingIds = new Map<string, string | undefined>();
  /** Each topic's id in the responses pushed so far (an id it had before is never taken for a newer one). */
  const responseIds = new TopicIds();
  /** The first stale record of each partition in the push going on: where the stream must read it from again. */
  const notDelivered = new Map<string, { positions: FetchPositions; offset: bigint }>();
  /** The last seek of each partition, to write again if a push of an older response overwrote it. */
  const sought = new Map<string, { positions: FetchPositions; offset: bigint; at: number }>();
  const keyOf = (topic: string, partition: number) => `${topic}:${partition}`;
  const staleSince = (key: string, sentAt: number) => Math.max(invalidatedAt.get(key) ?? 0, allInvalidatedAt) > sentAt;

  function hold(callback: FetchCallback, ms: number): void {
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      held.delete(release);
      callback(null, { responses: [] });
    };
    const timer = setTimeout(release, ms);
    held.add(release);
  }

  const gated = (options: GatedFetchOptions, callback: FetchCallback): void => {
    const sentAt = clock;
    consumer.metadata({ topics: topics() }, (metadataError, metadata) => {
      // Without names the gate can neither leave partitions out nor cut stale records: nothing is fetched this time.
      if (metadataError || metadata === undefined) return hold(callback, options.maxWaitTime ?? DEFAULT_HOLD_MS);
      onMetadata(metadata.topics);
      const names = new Map([...metadata.topics].map(([name, t]) => [t.id, name]));
      const wanted = options.topics
        .map((t) => ({ ...t, partitions: t.partitions.filter((p) => staleSince(keyOf(names.get(t.topicId) ?? '', p.partition), sentAt) === false && policy(names.get(t.topicId) ?? '', p.partition)) }))
        .filter((t) => t.partitions.length > 0);
      if (wanted.length === 0) return hold(callback, options.maxWaitTime ?? DEFAULT_HOLD_MS);
      original.call(consumer, { ...options, topics: wanted }, (error, response) => {
        for (const topic of response?.responses ?? []) {
          for (const p of topic.partitions) if (staleSince(keyOf(names.get(topic.topicId) ?? '', p.partitionIndex), sentAt)) p.records = undefined;
        }
        // Once a response, not at every record: the name placeholder and the zero id name none.
        const changed: string[] = [];
        for (const topic of response?.responses ?? []) {
          const name = names.get(topic.topicId);
          if (name === undefined) continue;
          const id = normalTopicId(topic.topicId, name);
          pushingIds.set(name, id);
          if (responseIds.seen(name, id) === 'new-log') changed.push(name);
        }
        // Before the push: a seek it makes leaves this response's records of the topic undelivered (stale).
        for (const name of changed) onTopicIdChange(name);
        pushing = sentAt;
        try {
          callback(error, response);
        } finally {
          pushing = undefined;
          pushingIds.clear();
          // The stream moved its offset past the whole response before pushing it: a seek made during the push stands,
          // and a partition with records not delivered (paused during the push) is read again from the first of them.
          for (const topic of response?.responses ?? []) {
            for (const p of topic.partitions) {
              const key = keyOf(names.get(topic.topicId) ?? '', p.partitionIndex);
              const seek = sought.get(key);
              const dropped = notDelivered.get(key);
              if (seek !== undefined && seek.at > sentAt) seek.positions.offsetsToFetch.set(key, seek.offset);
              else if (dropped !== undefined) dropped.positions.offsetsToFetch.set(key, dropped.offset);
            }
          }
          notDelivered.clear();
        }
      });
    });
  };
  consumer.fetch = gated;

  return {
    setPolicy(fetchable) {
      policy = fetchable;
    },
    invalidate(topic, partition) {
      invalidatedAt.set(keyOf(topic, partition), ++clock);
    },
    invalidateAll() {
      allInvalidatedAt = ++clock;
      sought.clear();
    },
    stale(positions, topic, partition, offset) {
      // Nothing invalidated since the response was requested (the common case): no record of it is stale.
      if (pushing === undefined || clock === pushing) return false;
      const key = keyOf(topic, partition);
      if (!staleSince(key, pushing)) return false;
      const first = notDelivered.get(key);
      if (first === undefined || offset < first.offset) notDelivered.set(key, { positions, offset });
      return true;
    },
    topicIdNow(topic) {
      return pushingIds.get(topic);
    },
    seek(positions, topic, partition, offset) {
      const at = ++clock;
      invalidatedAt.set(keyOf(topic, partition), at);
      sought.set(keyOf(topic, partition), { positions, offset, at });
      positions.offsetsToFetch.set(keyOf(topic, partition), offset);
    },
    wake() {
      for (const release of [...held]) release();
    },
    restore() {
      if (consumer.fetch === gated) consumer.fetch = original;
      for (const release of [...held]) release();
    },
  };
}
