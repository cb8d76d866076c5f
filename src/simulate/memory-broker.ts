import type {
  CommittedOffset,
  ConsumerPort,
  EachBatchPayload,
  EachMessagePayload,
  KafkaPort,
  OffsetCommit,
  OutgoingMessage,
  ProducerPort,
  RunOptions,
  TopicPartitionOffset,
  TopicPartitions,
} from '../runtime/port';
import type { VirtualClock } from './virtual-clock';
import type { KeepsSeeks } from './faulty-port';
import { DefectError } from '../runtime/krt-error';

interface StoredRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | string | (Buffer | string)[]>;
  readonly timestamp: number;
}

const tp = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** The error a real broker gives for a write it refuses, as the runtime sees it. */
export class BrokerRefusedError extends Error {
  override name = 'KafkaJSProtocolError';
}

/** A commit refused for metadata past the broker's `offset.metadata.max.bytes`, as kafkajs reports it. */
export class MetadataTooLargeError extends BrokerRefusedError {
  readonly type = 'OFFSET_METADATA_TOO_LARGE';
  readonly code = 12;
  readonly retriable = false;
  constructor() {
    super('The metadata field of the offset request was too large');
  }
}

/**
 * What a client does when eachMessage or eachBatch throws. `fail`: the run fails (a bug in
 * a test). `kafkajs`: its retrier fetches again from the last resolved record (a seek made
 * during the call wins), and after `retries` throws in a row the consumer crashes and
 * restarts: it rejoins, pauses are gone, positions come from the committed offsets.
 * `confluent`: the client seeks back to the record that threw (after any seek made during
 * the call, so its own wins) and goes on; no rejoin.
 */
export type ThrowReaction = 'fail' | 'kafkajs' | 'confluent';

/**
 * kafkajs (2.2.4, retry/index.js and consumer/index.js): an error thrown out of eachMessage
 * or eachBatch that is not retriable (`retriable: false`, or a TypeError, RangeError,
 * SyntaxError or ReferenceError) and is no rebalance crashes the consumer, and onCrash
 * restarts it only when the cause was retriable: the consumer stops for good.
 */
function stopsKafkaJs(error: unknown): boolean {
  const e = (error ?? {}) as { retriable?: unknown; type?: unknown; name?: unknown };
  const rejoins = ['REBALANCE_IN_PROGRESS', 'NOT_COORDINATOR_FOR_GROUP', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID'].includes(String(e.type));
  const unrecoverable = ['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError'].includes(String(e.name));
  return !rejoins && (e.retriable === false || unrecoverable);
}

/** kafkajs's default `retry.retries`. */
export const KAFKAJS_RETRIES = 5;

/**
 * An in-memory Kafka for unit tests and the simulator: topics must be created (no
 * auto-creation), offsets are committed per group, consumers pause, resume and seek.
 * One member per group. With eachMessage one record at a time per consumer; with
 * eachBatch up to `partitionsConsumedConcurrently` partitions at once, a batch of up to
 * `batchSize` records each. Never a stand-in for the real broker where commits, crashes or ACLs matter.
 */
export class MemoryBroker {
  private readonly logs = new Map<string, StoredRecord[][]>();
  private readonly committed = new Map<string, Map<string, { offset: number; metadata: string | null }>>();
  private readonly consumers: MemoryConsumer[] = [];
  private readonly refusals = new Map<string, number>();
  private readonly commitRefusals = new Map<string, number>();
  /** Per partition, the first offset retention (or a delete-records request) left. */
  private readonly logStarts = new Map<string, number>();
  /** Each topic's id, a new one when it is created again (deterministic, so a seed keeps its case). */
  private readonly topicIds = new Map<string, string>();
  private topicsCreated = 0;
  /** Heartbeats consumers sent from inside eachMessage (during long waits on one record). */
  heartbeats = 0;
  /** Most records in one eachBatch call. */
  batchSize = 100;
  /** Errors thrown out of eachMessage or eachBatch; with `throwReaction: 'fail'` they fail the run. */
  readonly consumerErrors: unknown[] = [];
  /** How consumers react to a throw out of eachMessage or eachBatch. */
  throwReaction: ThrowReaction = 'fail';
  /**
   * Pauses outlive a group rebalance, as with kafkajs (its subscription state outlives the
   * join; only a crash-restart builds a new one). By default a rebalance clears them.
   */
  pausesSurviveRebalance = false;
  /**
   * eachMessage on up to `partitionsConsumedConcurrently` partitions at once, one record per
   * partition at a time, as both real clients run it: a main record and a tier record of one
   * partition then meet on park-by-key's lock, and a seek one makes lands while the other runs.
   * By default one record at a time per consumer.
   */
  messagesSideBySide = false;
  /** Consumers kafkajs stopped for good: a non-retriable error thrown out of eachMessage or eachBatch. */
  stoppedForGood = 0;
  /** Consumers that crashed and rejoined (kafkajs, after its retries). */
  restarts = 0;

  constructor(readonly clock: VirtualClock) {}

  createTopic(name: string, partitions: number): void {
    if (this.logs.has(name)) return;
    this.logs.set(name, Array.from({ length: partitions }, () => []));
    this.newTopicId(name);
  }

  /** The topic's id, in Kafka's spelling; undefined for a topic never created. */
  topicIdOf(topic: string): string | undefined {
    return this.topicIds.get(topic);
  }

  private newTopicId(topic: string): void {
    const bytes = Buffer.alloc(16);
    bytes.writeUInt32BE(++this.topicsCreated, 12);
    bytes[0] = 0x6b; // never the all-zero id, Kafka's "none"
    this.topicIds.set(topic, bytes.toString('base64url'));
  }

  /**
   * The topic deleted and created again with as many partitions (a Terraform replacement): its
   * log starts over at offset 0, every group's commits of it go with the old log (Kafka drops
   * them), and the groups reading it rebalance. `rebalance: false`: they do not (kafkajs rejoins
   * only when the partition ids change); see `readFromEarliest`.
   */
  recreateTopic(topic: string, { rebalance = true }: { rebalance?: boolean } = {}): void {
    const partitions = this.partitionsOf(topic);
    if (partitions === 0) throw new BrokerRefusedError(`This server does not host this topic-partition: ${topic}`);
    this.logs.set(topic, Array.from({ length: partitions }, () => []));
    this.newTopicId(topic);
    for (let p = 0; p < partitions; p++) this.logStarts.delete(tp(topic, p));
    for (const group of this.committed.values()) for (let p = 0; p < partitions; p++) group.delete(tp(topic, p));
    if (!rebalance) return;
    const readers = new Set(this.consumers.filter((c) => c.connected && c.reads(topic)).map((c) => c.groupId));
    for (const groupId of readers) this.rebalance(groupId);
  }

  /** kafkajs's answer to OFFSET_OUT_OF_RANGE with fromBeginning: every member reading the topic reads the partition from offset 0, no rejoin. */
  readFromEarliest(topic: string, partition: number): void {
    for (const c of this.consumers.filter((c) => c.connected && c.reads(topic))) c.seek({ topic, partition, offset: '0' });
  }

  /**
   * Retention (or a delete-records request) deletes a partition's records below `offset`. A
   * fetch below the log's start reads from it, as both clients answer OFFSET_OUT_OF_RANGE when
   * reading from the earliest offset (the runtime subscribes `fromBeginning`). `records()`
   * still lists the deleted records, for the tests to name them.
   */
  deleteRecordsBefore(topic: string, partition: number, offset: number): void {
    this.partitionLog(topic, partition);
    this.logStarts.set(tp(topic, partition), Math.max(this.logStartOf(topic, partition), offset));
  }

  /**
   * kafkajs answers a fetch out of range by committing the earliest offset's sentinel (-2,
   * no metadata) for the group, then reading from the log start: the commit's metadata is gone.
   */
  outOfRangeCommitsEarliest = false;

  resetCommitToEarliest(groupId: string, topic: string, partition: number): void {
    const group = this.committed.get(groupId) ?? new Map<string, { offset: number; metadata: string | null }>();
    group.set(tp(topic, partition), { offset: -2, metadata: null });
    this.committed.set(groupId, group);
  }

  /** The first offset a fetch of the partition can read. */
  logStartOf(topic: string, partition: number): number {
    return this.logStarts.get(tp(topic, partition)) ?? 0;
  }

  /** The next `count` writes to a topic fail, as when its write ACL is missing. */
  refuseWrites(topic: string, count: number): void {
    this.refusals.set(topic, count);
  }

  /**
   * The broker's `offset.metadata.max.bytes` (none: unlimited). A commit of a partition with
   * more metadata is refused, as kafkajs reports it; the request's other partitions are stored.
   */
  metadataMaxBytes: number | undefined;

  /** The next `count` commits of a group fail, as when its coordinator is unavailable. */
  refuseCommits(groupId: string, count: number): void {
    this.commitRefusals.set(groupId, count);
  }

  records(topic: string, partition = 0): readonly StoredRecord[] {
    return this.partitionLog(topic, partition);
  }

  committedOffset(groupId: string, topic: string, partition: number): number | undefined {
    return this.committed.get(groupId)?.get(tp(topic, partition))?.offset;
  }

  committedMetadata(groupId: string, topic: string, partition: number): string | null {
    return this.committed.get(groupId)?.get(tp(topic, partition))?.metadata ?? null;
  }

  partitionsOf(topic: string): number {
    return this.logs.get(topic)?.length ?? 0;
  }

  private partitionLog(topic: string, partition: number): StoredRecord[] {
    const log = this.logs.get(topic)?.[partition];
    if (!log) throw new BrokerRefusedError(`This server does not host this topic-partition: ${topic}-${partition}`);
    return log;
  }

  /** Writes a record; `timestamp` (epoch ms, the clock's now by default) lets tests write what odd producers write. */
  append(topic: string, message: Omit<OutgoingMessage, 'headers' | 'timestamp'> & { headers?: OutgoingMessage['headers']; timestamp?: number }): number {
    const refusals = this.refusals.get(topic) ?? 0;
    if (refusals > 0) {
      this.refusals.set(topic, refusals - 1);
      throw new BrokerRefusedError(`Not authorized to access topics: [${topic}]`);
    }
    const log = this.partitionLog(topic, message.partition ?? this.defaultPartition(topic, message.key));
    log.push({ key: message.key, value: message.value, headers: message.headers ?? {}, timestamp: message.timestamp ?? this.clock.now() });
    return log.length - 1;
  }

  /** Where a record without a partition goes: by key, as a producer's default partitioner does (not its exact hash). */
  private defaultPartition(topic: string, key: Buffer | null): number {
    const partitions = this.partitionsOf(topic);
    return partitions === 0 || key === null ? 0 : key.reduce((h, b) => (h * 31 + b) >>> 0, 7) % partitions;
  }

  commit(groupId: string, offsets: OffsetCommit[]): void {
    const refusals = this.commitRefusals.get(groupId) ?? 0;
    if (refusals > 0) {
      this.commitRefusals.set(groupId, refusals - 1);
      throw new BrokerRefusedError('The coordinator is not available');
    }
    const group = this.committed.get(groupId) ?? new Map<string, { offset: number; metadata: string | null }>();
    // As Kafka does, per partition: the commits that fit are stored, the others refused.
    const tooLarge = (o: OffsetCommit) => this.metadataMaxBytes !== undefined && Buffer.byteLength(o.metadata ?? '') > this.metadataMaxBytes;
    for (const o of offsets) if (!tooLarge(o)) group.set(tp(o.topic, o.partition), { offset: Number(o.offset), metadata: o.metadata ?? null });
    this.committed.set(groupId, group);
    if (offsets.some(tooLarge)) throw new MetadataTooLargeError();
  }

  /**
   * `topicIds: 'fetch'`: each payload names its topic's id, as a client reading with Fetch v13
   * does (@platformatic/kafka). By default none, as kafkajs and the Confluent client's KafkaJS
   * API hand out records.
   */
  port({ topicIds = 'none' }: { topicIds?: 'fetch' | 'none' } = {}): KafkaPort {
    return {
      consumer: (groupId) => {
        const consumer = new MemoryConsumer(this, groupId, topicIds === 'fetch');
        this.consumers.push(consumer);
        return consumer;
      },
      producer: (): ProducerPort => ({
        connect: async () => {},
        disconnect: async () => {},
        send: async ({ topic, messages }) => {
          for (const m of messages) this.append(topic, asAppended(m));
        },
        sendBatch: async (records) => {
          for (const { topic, messages } of records) for (const m of messages) this.append(topic, asAppended(m));
        },
      }),
    };
  }

  /**
   * Delivers records and moves the clock until nothing is left to do or `until` is
   * reached: whenever every consumer waits on a timer, time jumps to the next one.
   */
  async run(options: { until?: number; maxSteps?: number; stopWhen?: () => boolean } = {}): Promise<void> {
    const maxSteps = options.maxSteps ?? 100_000;
    for (let step = 0; step < maxSteps; step++) {
      if (options.stopWhen?.()) return;
      const started = this.consumers.filter((c) => c.deliverNext()).length;
      await settle();
      if (this.throwReaction === 'fail' && this.consumerErrors.length > 0) throw this.consumerErrors[0];
      if (started > 0) continue;
      const busy = this.consumers.some((c) => c.busy);
      if (!this.clock.hasTimers()) {
        if (busy) throw new DefectError('a consumer is stuck: it waits on something that is neither a record nor a timer');
        return;
      }
      if (!busy && options.until !== undefined && this.clock.now() >= options.until) return;
      this.clock.advanceToNextTimer();
      await settle();
    }
    throw new DefectError(`the simulation did not settle within ${maxSteps} steps`);
  }

  /** Every member of a group loses and regains its partitions, as in a rebalance. */
  rebalance(groupId: string): void {
    for (const c of this.consumers.filter((c) => c.groupId === groupId && c.connected)) c.rebalance(!this.pausesSurviveRebalance);
  }

  /** The partitions connected members of a group hold paused, as `topic-partition`, sorted. */
  pausedPartitions(groupId: string): string[] {
    return this.consumers
      .filter((c) => c.groupId === groupId && c.connected)
      .flatMap((c) => c.pausedPartitions())
      .sort();
  }

  fetchPosition(groupId: string, topic: string, partition: number): number {
    return this.committedOffset(groupId, topic, partition) ?? 0;
  }
}

/** A produced message as the log stores it: a timestamp the producer set, as a number. */
function asAppended({ timestamp, ...message }: OutgoingMessage) {
  return { ...message, ...(timestamp === undefined ? {} : { timestamp: Number(timestamp) }) };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

class MemoryConsumer implements ConsumerPort, KeepsSeeks {
  private topics: string[] = [];
  private readonly positions = new Map<string, number>();
  private readonly paused = new Set<string>();
  private readonly rebalanceListeners: (() => void)[] = [];
  private eachMessage?: (payload: EachMessagePayload) => Promise<void>;
  private eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  private concurrency = 1;
  private cursor = 0;
  /** Partitions with an eachBatch call running. */
  private readonly inBatch = new Set<string>();
  /** Bumped by a seek or a rebalance: a batch handed out before is stale. */
  private readonly generations = new Map<string, number>();
  /**
   * Rebalances of this member. A real client ends a call in flight before it gives up its
   * partitions (kafkajs rejoins between fetches; the Confluent client's revoke waits for its
   * workers), so a call that throws after a rebalance here threw before it there: its seek back
   * must not outlive the rebalance, which reads the partition again from its commit.
   */
  private rebalances = 0;
  /** Partitions with an eachMessage call running (one at a time unless the broker runs them side by side). */
  private readonly inMessage = new Set<string>();
  connected = false;
  /** Throws in a row (kafkajs crashes and restarts after its retries). */
  private throwsInARow = 0;

  constructor(
    private readonly broker: MemoryBroker,
    readonly groupId: string,
    private readonly tellsTopicIds = false,
  ) {}

  private topicIdOf(topic: string): { topicId?: string } {
    const id = this.tellsTopicIds ? this.broker.topicIdOf(topic) : undefined;
    return id === undefined ? {} : { topicId: id };
  }

  async connect(): Promise<void> {
    this.connected = true;
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    this.eachMessage = undefined;
    this.eachBatch = undefined;
  }

  /** A disconnected member (a crashed process) is never busy: what it had in hand never finishes. */
  get busy(): boolean {
    return this.connected && (this.inMessage.size > 0 || this.inBatch.size > 0);
  }

  pausedPartitions(): string[] {
    return [...this.paused].map((id) => id.replace('\u0000', '-'));
  }

  reads(topic: string): boolean {
    return this.topics.includes(topic);
  }

  async subscribe({ topics }: { topics: string[] }): Promise<void> {
    for (const topic of topics) {
      if (this.broker.partitionsOf(topic) === 0) throw new BrokerRefusedError(`This server does not host this topic-partition: ${topic}`);
    }
    this.topics = [...this.topics, ...topics];
  }

  async run(options: RunOptions): Promise<void> {
    this.concurrency = options.partitionsConsumedConcurrently ?? 1;
    if ('eachMessage' in options) this.eachMessage = options.eachMessage;
    else this.eachBatch = options.eachBatch;
  }

  pause(partitions: TopicPartitions[]): void {
    for (const t of partitions) for (const p of t.partitions) this.paused.add(tp(t.topic, p));
  }

  resume(partitions: TopicPartitions[]): void {
    for (const t of partitions) for (const p of t.partitions) this.paused.delete(tp(t.topic, p));
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    this.positions.set(tp(topic, partition), Number(offset));
    this.bump(tp(topic, partition));
  }

  /** Seeks made while their partition was not assigned (a rebalance under way): applied at its next assignment. */
  private readonly keptSeeks = new Map<string, number>();

  /** The Confluent client's seek of a partition it does not hold: its next assignment reads from `offset`, not from the group's commit. */
  keepSeekUntilAssigned({ topic, partition, offset }: TopicPartitionOffset): void {
    this.keptSeeks.set(tp(topic, partition), Number(offset));
  }

  private bump(id: string): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
  }

  /** Stores a commit's metadata, as kafkajs and the Confluent client do. */
  readonly carriesCommitMetadata = true;

  async commitOffsets(offsets: OffsetCommit[]): Promise<void> {
    this.broker.commit(this.groupId, offsets);
  }

  async committed(topic: string, partitions: number[]): Promise<CommittedOffset[]> {
    return partitions.map((partition) => ({
      partition,
      offset: String(this.broker.committedOffset(this.groupId, topic, partition) ?? -1),
      // As the adapters' reader gives it back (adapters/group-offsets.ts): without the NUL a state is written with.
      metadata: withoutNul(this.broker.committedMetadata(this.groupId, topic, partition)),
    }));
  }

  async logStartOffsets(topic: string, partitions: number[]): Promise<{ partition: number; offset: string }[]> {
    return partitions.map((partition) => ({ partition, offset: String(this.broker.logStartOf(topic, partition)) }));
  }

  onRebalance(listener: () => void): void {
    this.rebalanceListeners.push(listener);
  }

  private thrown(error: unknown): void {
    this.broker.consumerErrors.push(error);
    if (this.broker.throwReaction === 'kafkajs' && stopsKafkaJs(error)) {
      // Crashed, and not restarted: kafkajs restarts only after retriable errors.
      this.broker.stoppedForGood++;
      this.connected = false;
      return;
    }
    if (this.broker.throwReaction !== 'kafkajs' || ++this.throwsInARow <= KAFKAJS_RETRIES) return;
    this.throwsInARow = 0;
    this.broker.restarts++;
    this.rebalance();
  }

  /** Forgets positions (and pauses, unless they outlive a rebalance), as a member that lost and got back its partitions. */
  rebalance(clearPauses = true): void {
    this.rebalances++;
    for (const id of this.positions.keys()) this.bump(id);
    this.positions.clear();
    for (const [id, offset] of this.keptSeeks) this.positions.set(id, offset);
    this.keptSeeks.clear();
    if (clearPauses) this.paused.clear();
    for (const listener of this.rebalanceListeners) listener();
  }

  private partitions(): { topic: string; partition: number }[] {
    return this.topics.flatMap((topic) => Array.from({ length: this.broker.partitionsOf(topic) }, (_, partition) => ({ topic, partition })));
  }

  /** Starts eachMessage on the next record, or eachBatch on as many partitions as allowed; false when nothing started. */
  deliverNext(): boolean {
    if (this.eachBatch) {
      let started = false;
      while (this.inBatch.size < this.concurrency && this.deliverBatch()) started = true;
      return started;
    }
    let started = false;
    const most = this.broker.messagesSideBySide ? this.concurrency : 1;
    while (this.inMessage.size < most && this.deliverMessage()) started = true;
    return started;
  }

  /** Starts eachMessage on the next record of a partition not paused and not in a call, round robin; false when none. */
  private deliverMessage(): boolean {
    if (!this.connected || !this.eachMessage) return false;
    const eachMessage = this.eachMessage;
    const all = this.partitions();
    for (let i = 0; i < all.length; i++) {
      const { topic, partition } = all[(this.cursor + i) % all.length]!;
      const id = tp(topic, partition);
      if (this.paused.has(id) || this.inMessage.has(id)) continue;
      const position = this.readPosition(id, topic, partition);
      const record = this.broker.records(topic, partition)[position];
      if (!record) continue;
      this.cursor = (this.cursor + i + 1) % all.length;
      this.positions.set(id, position + 1);
      this.inMessage.add(id);
      const payload: EachMessagePayload = {
        topic,
        partition,
        message: { key: record.key, value: record.value, headers: record.headers, offset: String(position), timestamp: String(record.timestamp) },
        heartbeat: async () => {
          this.broker.heartbeats++;
        },
        ...this.topicIdOf(topic),
      };
      const generation = this.generations.get(id) ?? 0;
      const rebalances = this.rebalances;
      eachMessage(payload)
        .then(
          () => void (this.throwsInARow = 0),
          (error: unknown) => {
            // kafkajs fetches again from the last resolved record, unless the call sought; the Confluent client seeks back to it.
            const sought = (this.generations.get(id) ?? 0) !== generation;
            const rejoined = this.rebalances !== rebalances;
            if (!rejoined && (this.broker.throwReaction === 'confluent' || (this.broker.throwReaction === 'kafkajs' && !sought))) this.positions.set(id, position);
            this.thrown(error);
          },
        )
        .finally(() => {
          this.inMessage.delete(id);
        });
      return true;
    }
    return false;
  }

  /**
   * Where the partition's next fetch reads: its position, or its log's start when retention
   * passed it (and, as kafkajs does, the reset committed: `outOfRangeCommitsEarliest`).
   */
  private readPosition(id: string, topic: string, partition: number): number {
    const position = this.positions.get(id) ?? this.broker.fetchPosition(this.groupId, topic, partition);
    const start = this.broker.logStartOf(topic, partition);
    if (position >= start) return position;
    if (this.broker.outOfRangeCommitsEarliest) this.broker.resetCommitToEarliest(this.groupId, topic, partition);
    this.positions.set(id, start);
    return start;
  }

  /**
   * Starts eachBatch on the next unpaused partition with records and no batch running,
   * round robin. Only resolved records move the read position, as with the real clients.
   */
  private deliverBatch(): boolean {
    if (!this.connected || !this.eachBatch) return false;
    const all = this.partitions();
    for (let i = 0; i < all.length; i++) {
      const { topic, partition } = all[(this.cursor + i) % all.length]!;
      const id = tp(topic, partition);
      if (this.paused.has(id) || this.inBatch.has(id)) continue;
      const position = this.readPosition(id, topic, partition);
      const records = this.broker.records(topic, partition).slice(position, position + this.broker.batchSize);
      if (records.length === 0) continue;
      this.cursor = (this.cursor + i + 1) % all.length;
      this.positions.set(id, position);
      this.inBatch.add(id);
      const generation = this.generations.get(id) ?? 0;
      const stale = () => !this.connected || (this.generations.get(id) ?? 0) !== generation;
      const payload: EachBatchPayload = {
        topic,
        partition,
        messages: records.map((record, k) => ({ key: record.key, value: record.value, headers: record.headers, offset: String(position + k), timestamp: String(record.timestamp) })),
        resolveOffset: (offset) => {
          if (!stale()) this.positions.set(id, Math.max(this.positions.get(id) ?? 0, Number(offset) + 1));
        },
        heartbeat: async () => {
          this.broker.heartbeats++;
        },
        isStale: stale,
        highWatermark: String(this.broker.records(topic, partition).length),
        ...this.topicIdOf(topic),
      };
      this.eachBatch(payload)
        .then(
          () => void (this.throwsInARow = 0),
          // Both clients fetch again from the first record not resolved (positions move only on resolve here).
          (error: unknown) => this.thrown(error),
        )
        .finally(() => this.inBatch.delete(id));
      return true;
    }
    return false;
  }
}

const withoutNul = (metadata: string | null) => (metadata === null ? null : metadata.replace(/\0+$/, ''));
