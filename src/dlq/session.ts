import { retryingRetriable } from './retriable';
import type { Consumer, Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { decodeRetryHeaders } from '../runtime/headers';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { MAX_HANDLED_METADATA_BYTES, decodeHandled, encodeHandled, expiredGap, isHandled, markHandled, partitionBacklog, passExpired } from '../runtime/dlq-handled';
import type { HandledState } from '../runtime/dlq-handled';
import { replayCountOf } from './replay-count';

/** A DLQ record nobody has handled yet, with its headers decoded. */
export interface DlqRecord {
  /** `<partition>:<offset>`, as the CLI takes and prints record ids. */
  readonly id: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RawHeaders;
  readonly decoded: RetryHeaders;
  /** How many times a krt replay already sent this record back (0 if never). */
  readonly replayCount: number;
}

/** Unhandled records of one partition that retention deleted before anyone handled them. */
export interface ExpiredRecords {
  readonly partition: number;
  /** All of them, ever: those earlier commands recorded plus those below the log start now. */
  readonly total: number;
  /** Those not yet recorded: between the replay group's offset and the log start. */
  readonly unrecorded: number;
  /** The partition's log start: every offset below it is gone. */
  readonly logStart: bigint;
}

/** What one commit will record: checked to fit before anything it covers is published. */
export interface PreparedCommit {
  readonly states: ReadonlyMap<number, HandledState>;
  /** Gaps below the log start this commit passes, to be audited with it. */
  readonly expired: readonly ExpiredRecords[];
}

export class DlqError extends Error {}

/**
 * A session in the consumer's replay group: it reads every unhandled record of the DLQ
 * (from the group's committed offsets, or the log start when retention deleted the
 * records there, to the end, skipping records handled beyond them) and commits records
 * as handled. One krt DLQ command per consumer at a time: a second member of the group
 * would take half the partitions.
 */
export class DlqSession {
  private constructor(
    readonly consumer: ConsumerModel,
    readonly records: readonly DlqRecord[],
    readonly expired: readonly ExpiredRecords[],
    private readonly states: Map<number, HandledState>,
    private readonly logStarts: ReadonlyMap<number, bigint>,
    private client: Consumer | undefined,
  ) {}

  /**
   * `keep` sees every unhandled record as it is read and says which to hold in `records`
   * (all by default): a caller that needs a page, a count or a bounded selection keeps
   * only that, so the session's memory does not grow with the DLQ.
   */
  static async open(kafka: Kafka, consumer: ConsumerModel, timeoutMs = 60_000, keep: (record: DlqRecord) => boolean = () => true): Promise<DlqSession> {
    const topic = consumer.dlq.name;
    const admin = kafka.admin();
    await admin.connect();
    const states = new Map<number, HandledState>();
    let offsets: { partition: number; low: string; high: string }[];
    try {
      offsets = await retryingRetriable(() => admin.fetchTopicOffsets(topic));
      const [committed] = await retryingRetriable(() => admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [topic] }));
      const commits = new Map((committed?.partitions ?? []).map((p) => [p.partition, p]));
      for (const { partition } of offsets) {
        const c = commits.get(partition);
        // No commit yet: nobody handled anything, so whatever retention deleted was unhandled.
        states.set(partition, decodeHandled(c && BigInt(c.offset) >= 0n ? BigInt(c.offset) : 0n, c?.metadata));
      }
    } finally {
      await admin.disconnect();
    }
    const ends = new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
    const logStarts = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
    const expired = offsets
      .map((p) => ({ partition: p.partition, state: states.get(p.partition)!, logStart: BigInt(p.low) }))
      .map(({ partition, state, logStart }) => ({ partition, total: partitionBacklog(state, logStart, logStart).expired, unrecorded: Number(expiredGap(state, logStart)), logStart }))
      .filter((e) => e.total > 0)
      .sort((a, b) => a.partition - b.partition);
    // Where reading starts: past what is handled and past what retention deleted.
    const live = new Map([...states].map(([partition, state]) => [partition, passExpired(state, logStarts.get(partition) ?? 0n)]));
    const pending = [...ends].filter(([partition, end]) => live.get(partition)!.committed < end);
    if (pending.length === 0) return new DlqSession(consumer, [], expired, states, logStarts, undefined);

    const client = kafka.consumer({ groupId: consumer.groups.replay, retry: { retries: 5 } });
    const records: DlqRecord[] = [];
    const waiting = new Set(pending.map(([partition]) => partition));
    try {
      await client.connect();
      await client.subscribe({ topics: [topic], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new DlqError(`could not read ${topic} to its end within ${timeoutMs / 1000}s`)), timeoutMs);
        // Start every partition at or after its log start: kafkajs recovers from an offset
        // below it by committing the reset offset itself, which would erase the handled state.
        client.on(client.events.GROUP_JOIN, () => {
          for (const [partition, state] of live) client.seek({ topic, partition, offset: state.committed.toString() });
        });
        client
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const partition = batch.partition;
              const end = ends.get(partition) ?? 0n;
              const state = live.get(partition)!;
              let last = -1n;
              for (const message of batch.messages) {
                const offset = BigInt(message.offset);
                if (offset >= end) break;
                last = offset;
                if (isHandled(state, offset)) continue;
                const headers = (message.headers ?? {}) as RawHeaders;
                const record: DlqRecord = {
                  id: `${partition}:${offset}`,
                  partition,
                  offset,
                  timestamp: Number(message.timestamp),
                  key: message.key,
                  value: message.value,
                  headers,
                  decoded: decodeRetryHeaders(headers),
                  replayCount: replayCountOf(headers),
                };
                if (keep(record)) records.push(record);
              }
              if (last + 1n >= end && waiting.delete(partition)) {
                client.pause([{ topic, partitions: [partition] }]);
                if (waiting.size === 0) {
                  clearTimeout(timer);
                  resolve();
                }
              }
            },
          })
          .catch(reject);
      });
    } catch (error) {
      await client.disconnect();
      throw error;
    }
    records.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
    return new DlqSession(consumer, records, expired, states, logStarts, client);
  }

  /**
   * The commit that records these records as handled, computed and checked against
   * Kafka's metadata limit before anything is published: a record whose handling cannot
   * be recorded is never replayed. It also passes any gap retention left below the log start.
   */
  prepare(records: readonly DlqRecord[]): PreparedCommit {
    const byPartition = new Map<number, bigint[]>();
    for (const r of records) {
      const list = byPartition.get(r.partition);
      if (list) list.push(r.offset);
      else byPartition.set(r.partition, [r.offset]);
    }
    const states = new Map<number, HandledState>();
    const expired: ExpiredRecords[] = [];
    for (const [partition, offsets] of byPartition) {
      const logStart = this.logStarts.get(partition) ?? 0n;
      const before = this.states.get(partition) ?? decodeHandled(0n, null);
      const gap = expiredGap(before, logStart);
      const next = markHandled(passExpired(before, logStart), offsets);
      const bytes = Buffer.byteLength(encodeHandled(next));
      if (bytes > MAX_HANDLED_METADATA_BYTES) {
        throw new DlqError(
          `partition ${partition}'s handled records would be too scattered to record in the replay group's commit (${bytes} bytes; Kafka keeps ${MAX_HANDLED_METADATA_BYTES}); nothing of this step was published`,
        );
      }
      states.set(partition, next);
      if (gap > 0n) expired.push({ partition, total: Number(next.expired), unrecorded: Number(gap), logStart });
    }
    return { states, expired };
  }

  /** How many of these records, in order, can be handled in this session: each prefix is checked to fit. */
  recordablePrefix(records: readonly DlqRecord[]): number {
    const fits = (n: number) => {
      try {
        this.prepare(records.slice(0, n));
        return true;
      } catch (error) {
        if (error instanceof DlqError) return false;
        throw error;
      }
    };
    if (fits(records.length)) return records.length;
    let low = 0;
    let high = records.length;
    while (high - low > 1) {
      const mid = (low + high) >> 1;
      if (fits(mid)) low = mid;
      else high = mid;
    }
    return low;
  }

  /** Commits a prepared step; the commit moves over every contiguous handled record. */
  async commit(prepared: PreparedCommit): Promise<void> {
    if (!this.client) throw new DlqError('this session read no records, so it has nothing to commit');
    const topic = this.consumer.dlq.name;
    await this.client.commitOffsets([...prepared.states].map(([partition, state]) => ({ topic, partition, offset: state.committed.toString(), metadata: encodeHandled(state) })));
    for (const [partition, state] of prepared.states) this.states.set(partition, state);
  }

  /** Leaves the replay group at once, so the next command does not wait for a session timeout. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.disconnect();
  }
}
