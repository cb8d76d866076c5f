import type { MonitorPort } from '../monitor-port';
import { recordMark } from '../record-mark';
import { topicIdIn } from '../topic-id';
import { everyPartitionAsRoundRobin, everyPartitionAssigner } from './every-partition-assigner';
import { disconnectAfterRun } from './kafkajs-leave';

/** A record as kafkajs hands it to `eachMessage`. */
interface KafkaJsMonitorMessage {
  readonly offset: string;
  readonly timestamp: string;
  readonly key?: Buffer | null;
  readonly value?: Buffer | null;
}

/** What a read does after a record: go on, stop reading its partition, or end. */
type AfterRecord = 'next' | 'pause' | 'done';

/** Where a read of a partition got to: the next offset it needs, or 'read' when it needs nothing more. */
type Position = string | 'read';

/**
 * The monitor group's assigners, preferred first: every member gets every partition, since
 * every monitor of a consumer (krt monitor, the in-process monitor of each replica) reads in
 * that group at once. The second lets a monitor of an older release (round-robin only) share
 * the group during a rolling upgrade: see every-partition-assigner.ts.
 */
export const MONITOR_ASSIGNERS = [everyPartitionAssigner, everyPartitionAsRoundRobin];

/**
 * How often a read's member heartbeats: a monitor that joins waits for every member already
 * there to rejoin, and each learns of it at its next heartbeat (kafkajs's default is every 3 s).
 */
const HEARTBEAT_MS = 1_000;

/** The parts of a kafkajs `Kafka` the monitor uses. */
export interface KafkaJsMonitorLike {
  admin(): {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    fetchTopicOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
    fetchOffsets(o: { groupId: string; topics: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[]>;
    /** kafkajs's answers carry no `topicId`; a client wrapped to read ids (src/connection/topic-ids.ts) gives it. */
    fetchTopicMetadata?(o: { topics: string[] }): Promise<{ topics: { name: string }[] }>;
  };
  consumer(config: { groupId: string; sessionTimeout?: number; heartbeatInterval?: number; partitionAssigners?: unknown[] }): {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    subscribe(s: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
    run(r: { autoCommit: boolean; eachMessage: (p: { partition: number; message: KafkaJsMonitorMessage }) => Promise<void> }): Promise<void>;
    seek(s: { topic: string; partition: number; offset: string }): void;
    pause(t: { topic: string; partitions: number[] }[]): void;
    on(event: string, listener: (event: { payload: { error: unknown; restart: boolean } }) => void): unknown;
    events: { GROUP_JOIN: string; CRASH?: string; END_BATCH_PROCESS?: string };
  };
}

/**
 * The monitor's reads with kafkajs: offsets through the admin API; the head records
 * through a consumer in the monitor's own group, sought to each offset, never committing.
 * Every monitor of the consumer reads in that group, each member getting every partition; a
 * member coming or going mid-read makes the read rejoin and seek where each partition got to.
 * A read kafkajs gives up on (records compressed with a codec it lacks) rejects at once.
 */
export function kafkajsMonitorPort(kafka: KafkaJsMonitorLike, monitorGroup: string, timeoutMs = 15_000): MonitorPort {
  async function withAdmin<T>(work: (admin: ReturnType<KafkaJsMonitorLike['admin']>) => Promise<T>): Promise<T> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  }
  /**
   * Reads `topic` in the monitor's group, on each join (the first, and each rejoin when
   * another monitor comes or goes) from where `positions` says each partition got to, handing
   * each record to `take` until it says the read is done (or to pause its partition), the
   * timeout passes (the read ends with what it has) or `signal` aborts.
   */
  async function readUntil(
    topic: string,
    positions: () => ReadonlyMap<number, Position>,
    take: (partition: number, message: KafkaJsMonitorMessage) => AfterRecord,
    deadlineMs: number,
    signal?: AbortSignal,
    passed?: (partition: number, lastOffset: bigint) => AfterRecord,
  ): Promise<void> {
    signal?.throwIfAborted();
    const consumer = kafka.consumer({ groupId: monitorGroup, sessionTimeout: 10_000, heartbeatInterval: HEARTBEAT_MS, partitionAssigners: MONITOR_ASSIGNERS });
    await consumer.connect();
    let running: Promise<void> | undefined;
    try {
      // From the beginning: a sought offset that retention deleted meanwhile resets to the log start.
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => done(signal!.reason);
        const timer = setTimeout(() => done(), deadlineMs);
        function done(error?: unknown): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if (error === undefined) resolve();
          else reject(error);
        }
        if (signal?.aborted) return done(signal.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        // Emitted before the new generation's first fetch. Not the read's start again: a rejoin
        // mid-read would hand what was read twice.
        consumer.on(consumer.events.GROUP_JOIN, () => {
          for (const [partition, position] of positions()) {
            if (position === 'read') consumer.pause([{ topic, partitions: [partition] }]);
            else consumer.seek({ topic, partition, offset: position });
          }
        });
        // A fetch kafkajs cannot decode (a codec it lacks) stops the consumer for good: said at once, not after the timeout.
        if (consumer.events.CRASH !== undefined) {
          consumer.on(consumer.events.CRASH, ({ payload }) => {
            if (!payload.restart) done(payload.error);
          });
        }
        // A fetch of offsets without a record a consumer sees (transaction markers, aborted
        // records) hands nothing to eachMessage: only this event tells the read went past them.
        // Its last offset counts only when every record of the batch was handed (kafkajs ends a
        // batch early on a seek or a stop, and still says where the batch ended).
        const handed = new Map<number, number>();
        if (passed !== undefined && consumer.events.END_BATCH_PROCESS !== undefined) {
          consumer.on(consumer.events.END_BATCH_PROCESS, (event) => {
            const e = (event as unknown as { payload?: { topic?: string; partition: number; batchSize: number; firstOffset: string | null; lastOffset: string } } | undefined)?.payload;
            if (!e || (e.topic !== undefined && e.topic !== topic)) return;
            const all = (handed.get(e.partition) ?? 0) === e.batchSize;
            handed.delete(e.partition);
            if (e.firstOffset === null || !all) return;
            const after = passed(e.partition, BigInt(e.lastOffset));
            if (after === 'done') done();
            else if (after === 'pause') consumer.pause([{ topic, partitions: [e.partition] }]);
          });
        }
        running = consumer.run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            handed.set(partition, (handed.get(partition) ?? 0) + 1);
            const after = take(partition, message);
            if (after === 'done') done();
            else if (after === 'pause') consumer.pause([{ topic, partitions: [partition] }]);
          },
        });
        running.catch(done);
      });
    } finally {
      await disconnectAfterRun(consumer, running);
    }
  }

  return {
    endOffsets: (topic) => withAdmin((admin) => admin.fetchTopicOffsets(topic)),
    committedOffsets: (groupId, topic) => withAdmin(async (admin) => (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions ?? []),
    topicId: (topic) => withAdmin(async (admin) => (admin.fetchTopicMetadata === undefined ? undefined : topicIdIn(await admin.fetchTopicMetadata({ topics: [topic] }), topic))),
    async timestampsAt(topic, offsets, signal) {
      const found = new Map<number, number | null>();
      const wanted = new Map(offsets.map((o) => [o.partition, o.offset]));
      const ends = new Map(offsets.flatMap((o) => (o.end === undefined ? [] : [[o.partition, BigInt(o.end)] as const])));
      const settle = (partition: number, timestamp: number | null): AfterRecord => {
        found.set(partition, timestamp);
        return found.size === wanted.size ? 'done' : 'pause';
      };
      await readUntil(
        topic,
        () => new Map([...wanted].map(([partition, offset]) => [partition, found.has(partition) ? 'read' : offset])),
        (partition, message) => {
          const offset = wanted.get(partition);
          if (offset === undefined || found.has(partition) || BigInt(message.offset) < BigInt(offset)) return 'next';
          return settle(partition, Number(message.timestamp));
        },
        timeoutMs,
        signal,
        // A fetch that went past the partition's end without a record from the offset on: markers only, none to wait for.
        (partition, last) => {
          const end = ends.get(partition);
          if (!wanted.has(partition) || found.has(partition) || end === undefined || last + 1n < end) return 'next';
          return settle(partition, null);
        },
      );
      return found;
    },
    async readFrom(topic, from, signal) {
      signal?.throwIfAborted();
      const offsets = await withAdmin((admin) => admin.fetchTopicOffsets(topic));
      const ends = new Map(offsets.map((p) => [p.partition, p.high]));
      // Each partition from the offset asked, or its log start when retention deleted that; one at its end is sought there, to read nothing.
      const starts = new Map(offsets.map((p) => [p.partition, maxOffset(from.get(p.partition) ?? p.low, p.low)]));
      const waiting = new Set(offsets.filter((p) => BigInt(starts.get(p.partition)!) < BigInt(p.high)).map((p) => p.partition));
      const records: { partition: number; offset: string; value: string }[] = [];
      if (waiting.size === 0) return { records, ends };
      // How far each partition was read, for a read that runs out of time: the next goes on from there.
      const progress = new Map(starts);
      // A partition is read once a fetch covered the offset before its end, whether that held a record or not.
      const reached = (partition: number, last: bigint): AfterRecord => {
        if (waiting.has(partition) && last + 1n > BigInt(progress.get(partition)!)) progress.set(partition, (last + 1n).toString());
        if (!waiting.has(partition) || last + 1n < BigInt(ends.get(partition) ?? '0')) return 'next';
        waiting.delete(partition);
        return waiting.size === 0 ? 'done' : 'pause';
      };
      await readUntil(
        topic,
        () => new Map(offsets.map((p) => [p.partition, waiting.has(p.partition) ? progress.get(p.partition)! : 'read'])),
        (partition, message) => {
          const offset = BigInt(message.offset);
          // Before where the partition got to: a record already taken, fetched again after a rejoin's seek.
          if (!waiting.has(partition) || offset >= BigInt(ends.get(partition) ?? '0') || offset < BigInt(progress.get(partition)!)) return 'next';
          records.push({ partition, offset: message.offset, value: message.value?.toString('utf8') ?? '' });
          return reached(partition, offset);
        },
        4 * timeoutMs,
        signal,
        reached,
      );
      if (waiting.size === 0) return { records, ends };
      // Out of time: what was read, and where each unfinished partition goes on.
      return { records, ends: new Map([...ends].map(([partition, end]) => [partition, waiting.has(partition) ? progress.get(partition)! : end])), complete: false };
    },
    async marksAt(topic, ranges, signal) {
      const marks = new Map([...ranges.keys()].map((partition) => [partition, new Map<bigint, string>()]));
      // Where each partition's read got to; a partition leaves `waiting` once read past its `to`.
      const readTo = new Map([...ranges].map(([partition, { from }]) => [partition, from]));
      const waiting = new Set(ranges.keys());
      if (waiting.size === 0) return { marks, readTo };
      const reached = (partition: number, last: bigint): AfterRecord => {
        if (!waiting.has(partition)) return 'next';
        // Never past `to` + 1: a read that went on past `to` kept no mark there, so covered nothing there.
        const cap = ranges.get(partition)!.to + 1n;
        const next = last + 1n > cap ? cap : last + 1n;
        if (next > readTo.get(partition)!) readTo.set(partition, next);
        if (last < ranges.get(partition)!.to) return 'next';
        waiting.delete(partition);
        return waiting.size === 0 ? 'done' : 'pause';
      };
      await readUntil(
        topic,
        () => new Map([...ranges.keys()].map((partition) => [partition, waiting.has(partition) ? readTo.get(partition)!.toString() : 'read'])),
        (partition, message) => {
          const offset = BigInt(message.offset);
          if (!waiting.has(partition) || offset < readTo.get(partition)!) return 'next';
          if (offset <= ranges.get(partition)!.to) marks.get(partition)!.set(offset, recordMark(message));
          return reached(partition, offset);
        },
        timeoutMs,
        signal,
        reached,
      );
      return { marks, readTo };
    },
  };
}

const maxOffset = (a: string, b: string) => (BigInt(a) > BigInt(b) ? a : b);
