import type { Clock } from './clock';
import type { ConsumerDescriptor, TierDescriptor } from './descriptor';
import { timestampOf } from './destination-record';
import { dueTimeOf, FirstSeen } from './due-time';
import type { RetryEventListener } from './events';
import { decodeRetryHeaders } from './headers';
import type { RetryMetrics } from './metrics';
import type { ConsumerPort, EachMessagePayload, PortMessage, TopicPartitionOffset } from './port';
import type { LogIds } from './log-ids';
import { isSameRecord } from './record-identity';
import { PublishHeld } from './record-handler';
import type { HandleOutcome, RecordHandler, RoutedFailure } from './record-handler';
import { RESUME_RETRY_MS } from './resume-retry';
import { SEEK_AGAIN_MS, SEEK_CONFIRM_MS } from './sought-back';

export interface TierPipelineOptions {
  readonly consumer: ConsumerDescriptor;
  /** The client that reads the tiers (with park-by-key, the one that reads the main topic too). */
  readonly client: () => ConsumerPort;
  readonly clock: Clock;
  readonly metrics: RetryMetrics;
  readonly emit: RetryEventListener;
  readonly records: RecordHandler;
  /**
   * A due tier record: run `handle` and commit (with park-by-key, through key parking, which
   * checks the key's hold first and may release the key). `handle` rejects with PublishHeld
   * when the record is held: nothing is to be committed, and its partition already waits at
   * it. `held`: the record was held before, so `handle` only publishes it to the DLQ again.
   * `handle(parkState)`: park-by-key's id of the state that holds the key for the record's copy.
   */
  readonly due: (record: EachMessagePayload, handle: (parkState?: string) => Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }>, held: boolean) => Promise<void>;
  readonly stopping: () => boolean;
  /** The topic id each partition was last read under, where the client tells ids (shared with the main pipeline). */
  readonly logIds: LogIds;
  /**
   * A tier partition's records now come from a new log (its topic deleted and created again),
   * told by their topic id: what was finished or committed of the old log says nothing of it.
   */
  readonly onNewLog: (topic: string, partition: number) => void;
}

export interface TierPipeline {
  onRecord(record: EachMessagePayload): Promise<void>;
  /** After a rebalance a paused partition may be gone or come back unpaused: waiting partitions start over. */
  forget(): void;
  /** For stop(): no timer is left. */
  close(): void;
}

/**
 * The tiers, a record at a time. The head of a tier partition is the record due first
 * (R1): if it is not due, the partition pauses, seeks back to it and resumes when it is;
 * never early (R13). A missing or garbage x-due-at, or one later than the tier's own
 * delay allows, falls back to the record's timestamp plus the delay, so no header can
 * hold a partition forever. A held record (the DLQ refused even its trimmed copy) waits the
 * same way, at the longest publish backoff, and is then published again: the retry
 * consumer's eachMessage slots are shared by every tier partition, so no record waits in one.
 */
export function createTierPipeline(options: TierPipelineOptions): TierPipeline {
  const { clock, emit } = options;
  const tierByTopic = new Map<string, TierDescriptor>(options.consumer.tiers.map((t) => [t.topic, t]));
  /** Each tier's lateness series, its labels looked up once. */
  const latenessByTopic = new Map(options.consumer.tiers.map((t) => [t.topic, options.metrics.lateness.labels(options.consumer.name, t.label)]));
  const firstSeen = new FirstSeen();
  /**
   * Partitions waiting for their head record to be due: the record, and the timer that
   * seeks back to it and resumes the partition. Listed before the pause and the seek, so
   * that whichever of them fails, the timer still brings the partition back to its head.
   */
  const waiting = new Map<string, { readonly offset: string; readonly head?: PortMessage; cancel: () => void }>();
  /**
   * Partitions resumed at their head, not read since: the first record read there must be
   * that head. Another record at its offset means the tier was deleted and created again
   * while the partition waited (with no rebalance): the seek went to an offset of the old log,
   * past the new log's first records (found by attack 15: they were never read).
   */
  /** Partitions resumed at their head record, until it is read again: since when, and the timer that seeks to it again. */
  const resumedAt = new Map<string, { readonly head: PortMessage; readonly since: number; cancel: () => void }>();
  const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  /**
   * Seeks a waiting partition back to its head and resumes it. Records read past the head
   * while a pause had not taken effect (or had failed) were skipped, so the head is read
   * again in any case. A refused seek or resume is tried again shortly: no partition stays
   * paused once the client answers again.
   */
  function resumePartition(topic: string, partition: number): void {
    const id = partitionKey(topic, partition);
    const entry = waiting.get(id);
    if (entry === undefined || options.stopping()) return;
    try {
      options.client().seek({ topic, partition, offset: entry.offset });
      options.client().resume([{ topic, partitions: [partition] }]);
      waiting.delete(id);
      if (entry.head !== undefined) resumedAt.set(id, { head: entry.head, since: clock.now(), cancel: seekHeadAgainLater(topic, partition) });
    } catch {
      // The client is restarting its group (after a broker outage, say), or refused: try again.
      entry.cancel = clock.setTimer(RESUME_RETRY_MS, () => resumePartition(topic, partition));
    }
  }

  /** Partitions a rebalance left paused, whose resume was refused: tried again until it lands. */
  const unpausing = new Map<string, () => void>();

  /**
   * After a rebalance a partition is paused exactly while it waits (kafkajs keeps pauses
   * across a rebalance; other clients drop them): a partition that waited is resumed, and
   * a refused resume is tried again until it lands or the partition waits again. Resuming
   * a partition that went to another member changes nothing.
   */
  function unpause(topic: string, partition: number): void {
    const id = partitionKey(topic, partition);
    unpausing.get(id)?.();
    unpausing.delete(id);
    if (waiting.has(id) || options.stopping()) return;
    try {
      options.client().resume([{ topic, partitions: [partition] }]);
    } catch {
      unpausing.set(id, clock.setTimer(RESUME_RETRY_MS, () => {
        unpausing.delete(id);
        unpause(topic, partition);
      }));
    }
  }

  /**
   * Held records by partition: the failure to publish again when the record is read again.
   * Forgotten by a rebalance (the record then runs again from its commit, wherever it is read).
   */
  const held = new Map<string, { readonly record: PortMessage; readonly failure: RoutedFailure }>();

  /**
   * Pauses a partition and seeks back to `offset` (its head record when given, checked when
   * read again), resumed by a timer after `ms`.
   */
  function waitAt(topic: string, partition: number, offset: string, ms: number, head?: PortMessage): void {
    const id = partitionKey(topic, partition);
    unpausing.get(id)?.();
    unpausing.delete(id);
    forgetResumed(id);
    waiting.set(id, { offset, ...(head === undefined ? {} : { head }), cancel: clock.setTimer(ms, () => resumePartition(topic, partition)) });
    options.client().pause([{ topic, partitions: [partition] }]);
    options.client().seek({ topic, partition, offset });
  }

  /**
   * Whether `record` is of a new log of its partition, read where the partition was resumed at
   * its head: then it is read again from its start (the earliest offset; the client resets a
   * seek below it there), and what the partition waited for or held is forgotten.
   */
  function readFromNewLog(record: EachMessagePayload, id: string): boolean {
    const head = resumedAt.get(id)?.head;
    if (head === undefined) return false;
    forgetResumed(id);
    if (record.message.offset !== head.offset || isSameRecord(head, record.message)) return false;
    emit({ type: 'tier-log-recreated', topic: record.topic, partition: record.partition, offset: record.message.offset });
    firstSeen.done(id);
    held.delete(id);
    waitAt(record.topic, record.partition, '0', 0);
    return true;
  }

  /**
   * Whether `record` names another topic id than its partition was read under: the topic was
   * deleted and created again, wherever the client reads it (its position, valid on the new log
   * once that log is long enough, is past the new log's first records, which nothing else could
   * tell: attack 15's second case). What the partition waited for or held is forgotten, and it
   * is read again from the new log's start. Asked before anything else of a record, so that no
   * other path takes it (a record fetched before a pause is dropped, and the id would then be
   * known without the log being read from its start).
   */
  function readNewLogById(record: EachMessagePayload, id: string): boolean {
    if (options.logIds.seen(record.topic, record.partition, record.topicId) !== 'new-log') return false;
    // waitAt below replaces the wait, not its timer.
    waiting.get(id)?.cancel();
    firstSeen.done(id);
    held.delete(id);
    options.onNewLog(record.topic, record.partition);
    emit({ type: 'tier-log-recreated', topic: record.topic, partition: record.partition, offset: record.message.offset, by: 'topic-id' });
    waitAt(record.topic, record.partition, '0', 0);
    return true;
  }

  /**
   * Whether `record` comes past the head record its partition was resumed at, which has not
   * been read again: the client read on past it (a seek back it dropped: the Confluent client
   * only logs a seek librdkafka refuses), and taken, it would be committed past the head, which
   * never ran. Not taken: the partition is sought back to the head again, until SEEK_CONFIRM_MS
   * after the resume says the head is gone (retention took it).
   */
  function readPastHead(record: EachMessagePayload, id: string): boolean {
    const resumed = resumedAt.get(id);
    if (resumed === undefined || BigInt(record.message.offset) <= BigInt(resumed.head.offset)) return false;
    if (clock.now() - resumed.since >= SEEK_CONFIRM_MS) {
      forgetResumed(id);
      return false;
    }
    seekToHead(record.topic, record.partition, resumed.head);
    return true;
  }

  function seekToHead(topic: string, partition: number, head: PortMessage): void {
    try {
      options.client().seek({ topic, partition, offset: head.offset });
    } catch {
      // Refused: the timer, or the next record read past the head, seeks again.
    }
  }

  /**
   * Seeks a partition resumed at its head to it again every SEEK_AGAIN_MS until the head is read
   * again, for SEEK_CONFIRM_MS: a seek the client dropped, with nothing past the head to read,
   * would leave the partition reading nothing, the head unread for good.
   */
  function seekHeadAgainLater(topic: string, partition: number): () => void {
    const id = partitionKey(topic, partition);
    return clock.setTimer(SEEK_AGAIN_MS, () => {
      const resumed = resumedAt.get(id);
      if (resumed === undefined || options.stopping()) return;
      if (clock.now() - resumed.since >= SEEK_CONFIRM_MS) return;
      seekToHead(topic, partition, resumed.head);
      resumed.cancel = seekHeadAgainLater(topic, partition);
    });
  }

  function forgetResumed(id: string): void {
    resumedAt.get(id)?.cancel();
    resumedAt.delete(id);
  }

  /** Runs a due record; a held one makes its partition wait at it, the publish tried again later. */
  async function runDue(record: EachMessagePayload, id: string): Promise<void> {
    const entry = held.get(id);
    const heldHere = entry !== undefined && isSameRecord(entry.record, record.message);
    if (entry !== undefined && !heldHere) held.delete(id);
    const before = heldHere ? entry.failure : undefined;
    /** Only the record's own eachMessage call may end in a hold; run later (a turn of park-by-key), it waits in place. */
    let away = true;
    try {
      await options.due(
        record,
        async (parkState) => {
          try {
            const ran = await options.records.handle(record, false, { away, before }, parkState);
            if (before !== undefined && held.get(id)?.failure === before) held.delete(id);
            return ran;
          } catch (error) {
            if (error instanceof PublishHeld && away) {
              held.set(id, { record: record.message, failure: error.failure });
              waitAt(record.topic, record.partition, record.message.offset, error.retryInMs, record.message);
            }
            throw error;
          }
        },
        before !== undefined,
      );
    } catch (error) {
      if (!(error instanceof PublishHeld)) throw error;
    } finally {
      away = false;
    }
  }

  return {
    async onRecord(record) {
      const tier = tierByTopic.get(record.topic)!;
      const id = partitionKey(record.topic, record.partition);
      if (readNewLogById(record, id)) return;
      if (waiting.has(id)) return; // fetched before the pause took effect; it comes again after the resume
      if (readPastHead(record, id)) return;
      if (readFromNewLog(record, id)) return;
      const now = clock.now();
      const dueAt = dueTimeOf({
        header: decodeRetryHeaders(record.message.headers).dueAt,
        writtenAt: timestampOf(record),
        firstSeenAt: firstSeen.at(id, record.message, now),
        delayMs: tier.delayMs,
      });
      if (now < dueAt) {
        waitAt(record.topic, record.partition, record.message.offset, dueAt - now, record.message);
        emit({ type: 'waiting', topic: record.topic, partition: record.partition, dueAt });
        return;
      }
      firstSeen.done(id);
      // A held record read again is no new processing start.
      const heldEntry = held.get(id);
      if (heldEntry === undefined || !isSameRecord(heldEntry.record, record.message)) latenessByTopic.get(record.topic)!.observe((now - dueAt) / 1000);
      await runDue(record, id);
    },
    forget() {
      firstSeen.clear();
      held.clear();
      for (const id of [...resumedAt.keys()]) forgetResumed(id);
      const entries = [...waiting];
      waiting.clear();
      for (const [id, entry] of entries) {
        entry.cancel();
        const [topic, partition] = id.split('\u0000');
        unpause(topic!, Number(partition));
      }
    },
    close() {
      for (const { cancel } of waiting.values()) cancel();
      waiting.clear();
      held.clear();
      for (const id of [...resumedAt.keys()]) forgetResumed(id);
      for (const cancel of unpausing.values()) cancel();
      unpausing.clear();
    },
  };
}
