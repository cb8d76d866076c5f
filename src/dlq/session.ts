import { retryingRetriable } from './retriable';
import type { Consumer, Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { decodeRetryHeaders } from '../runtime/headers';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { dlqReaderGroupName } from '../naming';
import { MAX_HANDLED_METADATA_BYTES, decodeHandled, encodeHandled, expiredGap, isHandled, keepsHandled, markHandled, partitionBacklog, passExpired, unionHandled } from '../runtime/dlq-handled';
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

type KafkaAdmin = ReturnType<Kafka['admin']>;

/** The replay group's committed state of these partitions of the DLQ. */
async function committedStates(admin: KafkaAdmin, consumer: ConsumerModel, partitions: readonly number[]): Promise<Map<number, HandledState>> {
  const [committed] = await retryingRetriable(() => admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] }));
  const commits = new Map((committed?.partitions ?? []).map((p) => [p.partition, p]));
  const states = new Map<number, HandledState>();
  for (const partition of partitions) {
    const c = commits.get(partition);
    // No commit yet: nobody handled anything, so whatever retention deleted was unhandled.
    states.set(partition, decodeHandled(c && /^\d+$/.test(c.offset) ? BigInt(c.offset) : 0n, c?.metadata));
  }
  return states;
}

/**
 * A session in the consumer's replay group: it reads every unhandled record of the DLQ
 * (from the group's committed offsets, or the log start when retention deleted the
 * records there, to the end, skipping records handled beyond them) and commits records
 * as handled. One krt DLQ command per consumer at a time.
 *
 * The records are read in a group of their own (dlqReaderGroupName), never in the replay
 * group: when retention passes a fetch position, kafkajs commits the reset offset without
 * metadata in the group that fetched, and in the replay group that would erase the handled
 * state. The replay group gets a member only to commit, and that member never fetches.
 */
export class DlqSession {
  private committer: Consumer | undefined;
  private admin: KafkaAdmin | undefined;
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    readonly consumer: ConsumerModel,
    readonly records: readonly DlqRecord[],
    readonly expired: readonly ExpiredRecords[],
    private readonly states: Map<number, HandledState>,
    private readonly logStarts: ReadonlyMap<number, bigint>,
    private readonly commitTimeoutMs: number,
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
    let offsets: { partition: number; low: string; high: string }[];
    let states: Map<number, HandledState>;
    try {
      offsets = await retryingRetriable(() => admin.fetchTopicOffsets(topic));
      states = await committedStates(admin, consumer, offsets.map((p) => p.partition));
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
    const records = pending.length === 0 ? [] : await readUnhandled(kafka, consumer, live, ends, timeoutMs, keep);
    return new DlqSession(kafka, consumer, records, expired, states, logStarts, timeoutMs);
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
      checkFits(partition, next);
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

  /**
   * Commits a prepared step; the commit moves over every contiguous handled record. What
   * the group holds now is read first: anything handled there that this session did not
   * know of (a commit it did not make) is kept, never overwritten.
   */
  async commit(prepared: PreparedCommit): Promise<void> {
    if (this.closed) throw new DlqError('this session is closed; open a new one to commit');
    const topic = this.consumer.dlq.name;
    const member = await this.member();
    if (!this.admin) {
      this.admin = this.kafka.admin();
      await this.admin.connect();
    }
    const stored = await committedStates(this.admin, this.consumer, [...prepared.states.keys()]);
    const next = new Map<number, HandledState>();
    for (const [partition, state] of prepared.states) {
      const now = stored.get(partition)!;
      const kept = keepsHandled(now, state) ? state : unionHandled(now, state);
      checkFits(partition, kept);
      next.set(partition, kept);
    }
    await member.commitOffsets([...next].map(([partition, state]) => ({ topic, partition, offset: state.committed.toString(), metadata: encodeHandled(state) })));
    for (const [partition, state] of next) this.states.set(partition, state);
  }

  /** The replay group's member that commits: joined at the first commit, its partitions paused before any fetch. */
  private async member(): Promise<Consumer> {
    if (this.committer) return this.committer;
    const topic = this.consumer.dlq.name;
    const client = this.kafka.consumer({ groupId: this.consumer.groups.replay, retry: { retries: 5 } });
    this.committer = client;
    await client.connect();
    await client.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DlqError(`could not join the replay group ${this.consumer.groups.replay} within ${this.commitTimeoutMs / 1000}s`)), this.commitTimeoutMs);
      client.on(client.events.GROUP_JOIN, () => {
        // Before the first fetch: a member that never fetches never commits a reset offset.
        client.pause([{ topic }]);
        clearTimeout(timer);
        resolve();
      });
      client.run({ autoCommit: false, eachBatch: async () => {} }).catch(reject);
      client.pause([{ topic }]);
    });
    return client;
  }

  /** Leaves the replay group at once, so the next command does not wait for a session timeout. */
  async close(): Promise<void> {
    this.closed = true;
    const [client, admin] = [this.committer, this.admin];
    this.committer = undefined;
    this.admin = undefined;
    await Promise.all([client?.disconnect(), admin?.disconnect()]);
  }
}

function checkFits(partition: number, state: HandledState): void {
  const bytes = Buffer.byteLength(encodeHandled(state));
  if (bytes > MAX_HANDLED_METADATA_BYTES) {
    throw new DlqError(
      `partition ${partition}'s handled records would be too scattered to record in the replay group's commit (${bytes} bytes; Kafka keeps ${MAX_HANDLED_METADATA_BYTES}); nothing of this step was published`,
    );
  }
}

/** Every unhandled record from each partition's live start to the end read at open, in the reader group. */
async function readUnhandled(
  kafka: Kafka,
  consumer: ConsumerModel,
  live: ReadonlyMap<number, HandledState>,
  ends: ReadonlyMap<number, bigint>,
  timeoutMs: number,
  keep: (record: DlqRecord) => boolean,
): Promise<DlqRecord[]> {
  const topic = consumer.dlq.name;
  const client = kafka.consumer({ groupId: dlqReaderGroupName(consumer.groups.replay), retry: { retries: 5 } });
  const records: DlqRecord[] = [];
  const waiting = new Set([...ends].filter(([partition, end]) => live.get(partition)!.committed < end).map(([partition]) => partition));
  try {
    await client.connect();
    await client.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DlqError(`could not read ${topic} to its end within ${timeoutMs / 1000}s`)), timeoutMs);
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
  } finally {
    await client.disconnect();
  }
  records.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
  return records;
}
