import type { Kafka } from 'kafkajs';

/**
 * A kafkajs-shaped Kafka for the DLQ tools' unit tests: topics with a log start, group
 * commits with metadata, and a consumer that behaves as kafkajs does where it matters
 * here: a fetch below the log start commits the reset offset without metadata in the
 * fetching group (kafkajs's recoverFromOffsetOutOfRange), whatever autoCommit says.
 * Every request passes `fault` first, which may throw (a refusal or a crash) or ask for
 * the request to be applied and then reported failed (an acknowledgement lost).
 */
export interface StoredMessage {
  readonly offset: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | string>;
  /** When it was appended (epoch ms, as a broker's LogAppendTime): a topic made again has other times at the same offsets. */
  readonly timestamp: string;
}

export type Operation = { readonly kind: 'send'; readonly topic: string; readonly count: number } | { readonly kind: 'commit'; readonly group: string } | { readonly kind: 'join'; readonly group: string };

/** What a fault hook returns: nothing (the request goes through) or 'applied-then-failed'. */
export type FaultOutcome = void | 'applied-then-failed';

export class RequestFailed extends Error {
  override name = 'KafkaJSRequestTimeoutError';
}

type EachBatch = (payload: { batch: { topic: string; partition: number; messages: unknown[]; firstOffset?: () => string | null; lastOffset?: () => string }; isStale: () => boolean }) => Promise<void>;

const toBuffer = (v: unknown): Buffer | null => (v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : Buffer.from(String(v)));

export class DlqKafkaDouble {
  private readonly logs = new Map<string, { start: bigint; next: bigint; messages: StoredMessage[] }[]>();
  readonly commits = new Map<string, Map<string, { offset: string; metadata: string | null }>>();
  /** Groups and their running members (in join order: the first leads), with the topics they read. */
  readonly members = new Map<string, Map<string, { topics: string[] }>>();
  private memberCount = 0;
  /** Each append a millisecond after the one before. */
  private appendedAt = 1_700_000_000_000;
  fault: (operation: Operation) => FaultOutcome = () => {};
  /**
   * The most bytes (keys, values and headers) one send may carry to one partition, as a
   * broker's max.message.bytes refuses a record batch larger than it (Kafka's default, 1 MB).
   */
  maxBatchBytes = 1_048_588;
  /**
   * Topics whose next send leaves every record out and still resolves, as kafkajs does for a
   * partition whose leader moved, on a retry, to a broker that answered before.
   */
  readonly leaveOutNextSendTo = new Set<string>();
  /** Every send's topic and acks, in order. */
  readonly sends: { topic: string; acks: number | undefined }[] = [];
  /** Runs before each consumer's first fetch of a partition: where a test moves a log start. */
  beforeFirstFetch: (group: string, topic: string, partition: number) => void = () => {};

  /**
   * Whether the admin reports each topic's id (fetchTopicMetadata's `topicId`), as the
   * Confluent client's does; kafkajs 2.2.4's reports none, and nor does the double by default.
   */
  reportsTopicIds = false;
  /** Each topic's id: a new one each time it is created (recreateTopic too), as Kafka gives. */
  private readonly topicIds = new Map<string, string>();
  private topicCount = 0;

  createTopic(name: string, partitions: number): void {
    this.logs.set(name, Array.from({ length: partitions }, () => ({ start: 0n, next: 0n, messages: [] })));
    this.topicIds.set(name, Buffer.from(`topic-${++this.topicCount}`.padEnd(16, '.')).toString('base64url'));
  }

  /** A partition added to a topic (kafka-topics --alter --partitions): an empty log after the others. */
  addPartition(topic: string): number {
    const logs = this.logs.get(topic);
    if (!logs) throw new Error(`no topic ${topic}`);
    logs.push({ start: 0n, next: 0n, messages: [] });
    return logs.length - 1;
  }

  /**
   * The topic deleted and created again under its name: an empty log for each partition, and,
   * as Kafka does when a topic is deleted, every group's offsets of it gone.
   */
  recreateTopic(name: string, partitions: number): void {
    this.createTopic(name, partitions);
    for (const byPartition of this.commits.values()) for (const key of [...byPartition.keys()]) if (key.startsWith(`${name}:`)) byPartition.delete(key);
  }

  append(topic: string, partition: number, message: { key?: unknown; value?: unknown; headers?: Record<string, unknown> }): bigint {
    const log = this.partitionOf(topic, partition);
    const next = this.end(topic, partition);
    const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v : String(v)]));
    log.messages.push({ offset: next, key: toBuffer(message.key), value: toBuffer(message.value), headers, timestamp: String(this.appendedAt++) });
    log.next = next + 1n;
    return next;
  }

  /**
   * An offset that holds no record a consumer sees: a transaction's commit or abort marker
   * (or an aborted record). kafkajs delivers none of them as a message, but a fetch covers
   * them (a batch's lastOffset(), or END_BATCH_PROCESS for a batch of nothing else).
   */
  appendMarker(topic: string, partition: number): bigint {
    const log = this.partitionOf(topic, partition);
    const offset = log.next;
    log.next = offset + 1n;
    return offset;
  }

  /** Moves the log start as retention does: every record below `offset` is gone. */
  /** The next appends stamped from `ms` on, a millisecond apart: a producer whose records carry times of its choosing. */
  stampFrom(ms: number): void {
    this.appendedAt = ms;
  }

  deleteBelow(topic: string, partition: number, offset: bigint): void {
    const log = this.partitionOf(topic, partition);
    log.start = offset;
    if (log.next < offset) log.next = offset;
    log.messages = log.messages.filter((m) => m.offset >= offset);
  }

  messages(topic: string): (StoredMessage & { partition: number })[] {
    return (this.logs.get(topic) ?? []).flatMap((log, partition) => log.messages.map((m) => ({ ...m, partition })));
  }

  private partitionOf(topic: string, partition: number) {
    const log = this.logs.get(topic)?.[partition];
    if (!log) throw new Error(`no partition ${topic}[${partition}]`);
    return log;
  }

  private end(topic: string, partition: number): bigint {
    return this.partitionOf(topic, partition).next;
  }

  private request(operation: Operation, apply: () => void): void {
    const outcome = this.fault(operation);
    apply();
    if (outcome === 'applied-then-failed') throw new RequestFailed(`${operation.kind} applied, acknowledgement lost`);
  }

  commit(group: string, topic: string, partition: number, offset: string, metadata: string | null): void {
    let byPartition = this.commits.get(group);
    if (!byPartition) this.commits.set(group, (byPartition = new Map()));
    byPartition.set(`${topic}:${partition}`, { offset, metadata });
  }

  /** As the broker answers a batch over max.message.bytes: the whole send refused, nothing appended. */
  /**
   * The partitions whose part of a send is larger than maxBatchBytes. As a broker does, a send
   * appends the batches of the other partitions and fails for those: a produce request is
   * atomic per partition, not as a whole.
   */
  private tooLarge(messages: readonly { partition?: number; key?: unknown; value?: unknown; headers?: Record<string, unknown> }[]): Map<number, number> {
    const bytes = new Map<number, number>();
    for (const m of messages) {
      const headers = Object.entries(m.headers ?? {}).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + (toBuffer(value)?.length ?? 0), 0);
      const size = (toBuffer(m.key)?.length ?? 0) + (toBuffer(m.value)?.length ?? 0) + headers;
      bytes.set(m.partition ?? 0, (bytes.get(m.partition ?? 0) ?? 0) + size);
    }
    return new Map([...bytes].filter(([, size]) => size > this.maxBatchBytes));
  }

  kafka(): Kafka {
    const double = this;
    const admin = () => ({
      connect: async () => {},
      disconnect: async () => {},
      fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
        topics: topics.map((name) => {
          if (!double.logs.has(name)) throw Object.assign(new Error(`This server does not host this topic-partition: ${name}`), { type: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: false });
          const partitions = double.logs.get(name)!.map((_, partitionId) => ({ partitionId, leader: 0, replicas: [0], isr: [0], offlineReplicas: [], partitionErrorCode: 0 }));
          return { name, partitions, ...(double.reportsTopicIds ? { topicId: double.topicIds.get(name)! } : {}) };
        }),
      }),
      fetchTopicOffsets: async (topic: string) =>
        (double.logs.get(topic) ?? []).map((log, partition) => ({ partition, offset: String(double.end(topic, partition)), high: String(double.end(topic, partition)), low: String(log.start) })),
      fetchOffsets: async ({ groupId, topics }: { groupId: string; topics: string[] }) =>
        topics.map((topic) => ({
          topic,
          partitions: (double.logs.get(topic) ?? []).map((_, partition) => {
            const c = double.commits.get(groupId)?.get(`${topic}:${partition}`);
            return { partition, offset: c?.offset ?? '-1', metadata: c?.metadata ?? null };
          }),
        })),
      listGroups: async () => ({ groups: [...new Set([...double.commits.keys(), ...double.members.keys()])].map((groupId) => ({ groupId, protocolType: 'consumer' })) }),
      describeGroups: async (ids: string[]) => ({
        groups: ids.map((groupId) => {
          const members = [...(double.members.get(groupId)?.keys() ?? [])];
          return { groupId, state: members.length > 0 ? 'Stable' : 'Empty', members: members.map((memberId) => ({ memberId, clientId: 'krt', clientHost: '/127.0.0.1', memberAssignment: Buffer.alloc(0) })), protocolType: 'consumer' };
        }),
      }),
    });
    const producer = () => ({
      connect: async () => {},
      disconnect: async () => {},
      send: async ({ topic, acks, messages }: { topic: string; acks?: number; messages: { partition?: number; key?: unknown; value?: unknown; headers?: Record<string, unknown> }[] }) => {
        double.sends.push({ topic, acks });
        const refused = double.tooLarge(messages);
        // As kafkajs: a record to a partition the topic lacks joins no request, and send() answers
        // with the partitions it wrote.
        const exists = (partition: number) => partition < (double.logs.get(topic)?.length ?? 0);
        const written = new Set<number>();
        if (double.leaveOutNextSendTo.delete(topic)) return [];
        double.request({ kind: 'send', topic, count: messages.length }, () => {
          for (const m of messages) {
            const partition = m.partition ?? 0;
            if (refused.has(partition) || !exists(partition)) continue;
            double.append(topic, partition, m);
            written.add(partition);
          }
        });
        const [partition, size] = [...refused][0] ?? [];
        if (partition !== undefined) {
          throw Object.assign(new RequestFailed(`MESSAGE_TOO_LARGE: ${size} bytes to ${topic}:${partition}, more than max.message.bytes ${double.maxBatchBytes}`), { type: 'MESSAGE_TOO_LARGE', retriable: false });
        }
        return [...written].map((p) => ({ topicName: topic, partition: p, errorCode: 0 }));
      },
    });
    const consumer = ({ groupId }: { groupId: string }) => {
      const listeners = new Map<string, ((event?: unknown) => void)[]>();
      const seeks = new Map<string, bigint>();
      const positions = new Map<string, bigint>();
      const memberId = `member-${++double.memberCount}`;
      const paused = new Set<string>();
      let topics: string[] = [];
      let running = false;
      const isPaused = (topic: string, partition: number) => paused.has(topic) || paused.has(`${topic}:${partition}`);
      const fetchOnce = async (eachBatch: EachBatch) => {
        for (const topic of topics) {
          for (let partition = 0; partition < (double.logs.get(topic)?.length ?? 0); partition++) {
            const id = `${topic}:${partition}`;
            if (!running || isPaused(topic, partition)) continue;
            if (!positions.has(id)) {
              double.beforeFirstFetch(groupId, topic, partition);
              const c = double.commits.get(groupId)?.get(id);
              positions.set(id, seeks.get(id) ?? (c && /^\d+$/.test(c.offset) ? BigInt(c.offset) : double.partitionOf(topic, partition).start));
            }
            let position = positions.get(id)!;
            const log = double.partitionOf(topic, partition);
            if (position < log.start || position > double.end(topic, partition)) {
              // kafkajs: OffsetOutOfRange -> commit the default offset (earliest) in this group, no metadata.
              double.commit(groupId, topic, partition, '-2', null);
              position = log.start;
            }
            const messages = log.messages.filter((m) => m.offset >= position);
            const end = double.end(topic, partition);
            if (position >= end) continue;
            positions.set(id, end);
            if (messages.length === 0) {
              // Markers only: kafkajs calls no eachBatch, but reports the batch it resolved past.
              for (const listener of listeners.get('consumer.end_batch_process') ?? []) {
                listener({ payload: { topic, partition, batchSize: 0, firstOffset: position.toString(), lastOffset: (end - 1n).toString() } });
              }
              continue;
            }
            const stored = new Set(log.messages.map((m) => m.offset));
            await eachBatch({
              // As kafkajs: a seek while the batch is in hand makes it stale.
              isStale: () => !positions.has(id),
              batch: {
                topic,
                partition,
                messages: messages.map((m) => ({ offset: m.offset.toString(), key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })),
                // As kafkajs: the fetch covers markers too; computed from the batch's own messages.
                firstOffset(this: { messages: { offset: string }[] }) {
                  return this.messages.length > 0 ? position.toString() : null;
                },
                lastOffset(this: { messages: { offset: string }[] }) {
                  let last = BigInt(this.messages[this.messages.length - 1]!.offset);
                  while (last + 1n < end && !stored.has(last + 1n)) last++;
                  return last.toString();
                },
              },
            });
          }
        }
      };
      return {
        events: { GROUP_JOIN: 'consumer.group_join', END_BATCH_PROCESS: 'consumer.end_batch_process', CRASH: 'consumer.crash', COMMIT_OFFSETS: 'consumer.commit_offsets' },
        connect: async () => {},
        subscribe: async (options: { topics: string[] }) => {
          topics = options.topics;
        },
        on: (event: string, listener: (event?: unknown) => void) => {
          listeners.set(event, [...(listeners.get(event) ?? []), listener]);
          return () => {};
        },
        run: async ({ eachBatch }: { eachBatch: EachBatch }) => {
          running = true;
          await Promise.resolve();
          double.request({ kind: 'join', group: groupId }, () => {
            const members = double.members.get(groupId) ?? new Map<string, { topics: string[] }>();
            double.members.set(groupId, members);
            members.set(memberId, { topics });
            const leaderId = members.keys().next().value as string;
            const memberAssignment = Object.fromEntries(topics.map((topic) => [topic, (double.logs.get(topic) ?? []).map((_, partition) => partition)]));
            for (const listener of listeners.get('consumer.group_join') ?? []) listener({ payload: { groupId, memberId, leaderId, isLeader: leaderId === memberId, memberAssignment } });
          });
          // As kafkajs's run(): it resolves once the member joined, and fetches on in the background.
          // A fetch that fails stops it, as kafkajs's crash does (CRASH, not restarted).
          void (async () => {
            while (running) {
              await fetchOnce(eachBatch);
              await new Promise((resolve) => setTimeout(resolve, 2));
            }
          })().catch((error: unknown) => {
            running = false;
            for (const listener of listeners.get('consumer.crash') ?? []) listener({ payload: { error, restart: false } });
          });
        },
        seek: ({ topic, partition, offset }: { topic: string; partition: number; offset: string }) => {
          seeks.set(`${topic}:${partition}`, BigInt(offset));
          positions.delete(`${topic}:${partition}`);
        },
        pause: (tps: { topic: string; partitions?: number[] }[]) => {
          for (const tp of tps) for (const key of tp.partitions ? tp.partitions.map((p) => `${tp.topic}:${p}`) : [tp.topic]) paused.add(key);
        },
        resume: (tps: { topic: string; partitions?: number[] }[]) => {
          for (const tp of tps) {
            if (tp.partitions) for (const p of tp.partitions) paused.delete(`${tp.topic}:${p}`);
            else for (const key of [...paused]) if (key === tp.topic || key.startsWith(`${tp.topic}:`)) paused.delete(key);
          }
        },
        commitOffsets: async (offsets: { topic: string; partition: number; offset: string; metadata?: string | null }[]) => {
          // As kafkajs: a consumer whose runner is not running answers without committing (runner.js commitOffsets).
          if (!running) return;
          double.request({ kind: 'commit', group: groupId }, () => {
            for (const o of offsets) double.commit(groupId, o.topic, o.partition, o.offset, o.metadata ?? null);
          });
          // As kafkajs: COMMIT_OFFSETS once the coordinator accepted the commit.
          const topics = [...new Set(offsets.map((o) => o.topic))].map((topic) => ({ topic, partitions: offsets.filter((o) => o.topic === topic) }));
          for (const listener of listeners.get('consumer.commit_offsets') ?? []) listener({ payload: { groupId, topics } });
        },
        disconnect: async () => {
          running = false;
          const members = double.members.get(groupId);
          members?.delete(memberId);
          if (members?.size === 0) double.members.delete(groupId);
        },
      };
    };
    return { admin, producer, consumer } as unknown as Kafka;
  }
}
