import type { Clock } from './clock';
import type { ConsumerDescriptor, TierDescriptor } from './descriptor';
import { timestampOf } from './destination-record';
import { dueTimeOf, FirstSeen } from './due-time';
import type { RetryEventListener } from './events';
import { decodeRetryHeaders } from './headers';
import type { RetryMetrics } from './metrics';
import type { ConsumerPort, EachMessagePayload, TopicPartitionOffset } from './port';
import { PublishHeld } from './record-handler';
import type { HandleOutcome, RecordHandler, RoutedFailure } from './record-handler';
import { RESUME_RETRY_MS } from './resume-retry';

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
   * Partitions waiting for their head record to be due: its offset, and the timer that
   * seeks back to it and resumes the partition. Listed before the pause and the seek, so
   * that whichever of them fails, the timer still brings the partition back to its head.
   */
  const waiting = new Map<string, { readonly head: string; cancel: () => void }>();
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
      options.client().seek({ topic, partition, offset: entry.head });
      options.client().resume([{ topic, partitions: [partition] }]);
      waiting.delete(id);
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
  const held = new Map<string, { readonly offset: string; readonly failure: RoutedFailure }>();

  /** Pauses a partition and seeks back to its head, resumed by a timer after `ms`. */
  function waitAt(topic: string, partition: number, head: string, ms: number): void {
    const id = partitionKey(topic, partition);
    unpausing.get(id)?.();
    unpausing.delete(id);
    waiting.set(id, { head, cancel: clock.setTimer(ms, () => resumePartition(topic, partition)) });
    options.client().pause([{ topic, partitions: [partition] }]);
    options.client().seek({ topic, partition, offset: head });
  }

  /** Runs a due record; a held one makes its partition wait at it, the publish tried again later. */
  async function runDue(record: EachMessagePayload, id: string): Promise<void> {
    const entry = held.get(id);
    if (entry !== undefined && entry.offset !== record.message.offset) held.delete(id);
    const before = entry?.offset === record.message.offset ? entry.failure : undefined;
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
              held.set(id, { offset: record.message.offset, failure: error.failure });
              waitAt(record.topic, record.partition, record.message.offset, error.retryInMs);
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
      if (waiting.has(id)) return; // fetched before the pause took effect; it comes again after the resume
      const now = clock.now();
      const dueAt = dueTimeOf({
        header: decodeRetryHeaders(record.message.headers).dueAt,
        writtenAt: timestampOf(record),
        firstSeenAt: firstSeen.at(id, record.message.offset, now),
        delayMs: tier.delayMs,
      });
      if (now < dueAt) {
        waitAt(record.topic, record.partition, record.message.offset, dueAt - now);
        emit({ type: 'waiting', topic: record.topic, partition: record.partition, dueAt });
        return;
      }
      firstSeen.done(id);
      // A held record read again is no new processing start.
      if (held.get(id)?.offset !== record.message.offset) latenessByTopic.get(record.topic)!.observe((now - dueAt) / 1000);
      await runDue(record, id);
    },
    forget() {
      firstSeen.clear();
      held.clear();
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
      for (const cancel of unpausing.values()) cancel();
      unpausing.clear();
    },
  };
}
