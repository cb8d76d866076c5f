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
}

export type Operation = { readonly kind: 'send'; readonly topic: string; readonly count: number } | { readonly kind: 'commit'; readonly group: string } | { readonly kind: 'join'; readonly group: string };

/** What a fault hook returns: nothing (the request goes through) or 'applied-then-failed'. */
export type FaultOutcome = void | 'applied-then-failed';

export class RequestFailed extends Error {
  override name = 'KafkaJSRequestTimeoutError';
}

const toBuffer = (v: unknown): Buffer | null => (v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : Buffer.from(String(v)));

export class DlqKafkaDouble {
  private readonly logs = new Map<string, { start: bigint; messages: StoredMessage[] }[]>();
  readonly commits = new Map<string, Map<string, { offset: string; metadata: string | null }>>();
  /** Groups and the topics their running members read. */
  readonly members = new Map<string, Set<string>>();
  fault: (operation: Operation) => FaultOutcome = () => {};
  /** Runs before each consumer's first fetch of a partition: where a test moves a log start. */
  beforeFirstFetch: (group: string, topic: string, partition: number) => void = () => {};

  createTopic(name: string, partitions: number): void {
    this.logs.set(name, Array.from({ length: partitions }, () => ({ start: 0n, messages: [] })));
  }

  append(topic: string, partition: number, message: { key?: unknown; value?: unknown; headers?: Record<string, unknown> }): bigint {
    const log = this.partitionOf(topic, partition);
    const next = this.end(topic, partition);
    const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v : String(v)]));
    log.messages.push({ offset: next, key: toBuffer(message.key), value: toBuffer(message.value), headers });
    return next;
  }

  /** Moves the log start as retention does: every record below `offset` is gone. */
  deleteBelow(topic: string, partition: number, offset: bigint): void {
    const log = this.partitionOf(topic, partition);
    log.start = offset;
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
    const log = this.partitionOf(topic, partition);
    return log.messages.length > 0 ? log.messages[log.messages.length - 1]!.offset + 1n : log.start;
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

  kafka(): Kafka {
    const double = this;
    const admin = () => ({
      connect: async () => {},
      disconnect: async () => {},
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
        groups: ids.map((groupId) => ({ groupId, state: double.members.get(groupId)?.size ? 'Stable' : 'Empty', members: [], protocolType: 'consumer' })),
      }),
    });
    const producer = () => ({
      connect: async () => {},
      disconnect: async () => {},
      send: async ({ topic, messages }: { topic: string; messages: { partition?: number; key?: unknown; value?: unknown; headers?: Record<string, unknown> }[] }) => {
        double.request({ kind: 'send', topic, count: messages.length }, () => {
          for (const m of messages) double.append(topic, m.partition ?? 0, m);
        });
        return [];
      },
    });
    const consumer = ({ groupId }: { groupId: string }) => {
      const listeners = new Map<string, (() => void)[]>();
      const seeks = new Map<string, bigint>();
      const positions = new Map<string, bigint>();
      const paused = new Set<string>();
      let topics: string[] = [];
      let running = false;
      const isPaused = (topic: string, partition: number) => paused.has(topic) || paused.has(`${topic}:${partition}`);
      const fetchOnce = async (eachBatch: (payload: { batch: { topic: string; partition: number; messages: unknown[] } }) => Promise<void>) => {
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
            if (messages.length === 0) continue;
            positions.set(id, messages[messages.length - 1]!.offset + 1n);
            await eachBatch({
              batch: {
                topic,
                partition,
                messages: messages.map((m) => ({ offset: m.offset.toString(), key: m.key, value: m.value, headers: m.headers, timestamp: '1700000000000' })),
              },
            });
          }
        }
      };
      return {
        events: { GROUP_JOIN: 'consumer.group_join' },
        connect: async () => {},
        subscribe: async (options: { topics: string[] }) => {
          topics = options.topics;
        },
        on: (event: string, listener: () => void) => {
          listeners.set(event, [...(listeners.get(event) ?? []), listener]);
          return () => {};
        },
        run: async ({ eachBatch }: { eachBatch: (payload: { batch: { topic: string; partition: number; messages: unknown[] } }) => Promise<void> }) => {
          running = true;
          await Promise.resolve();
          double.request({ kind: 'join', group: groupId }, () => {
            double.members.set(groupId, new Set(topics));
            for (const listener of listeners.get('consumer.group_join') ?? []) listener();
          });
          while (running) {
            await fetchOnce(eachBatch);
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        },
        seek: ({ topic, partition, offset }: { topic: string; partition: number; offset: string }) => {
          seeks.set(`${topic}:${partition}`, BigInt(offset));
          positions.delete(`${topic}:${partition}`);
        },
        pause: (tps: { topic: string; partitions?: number[] }[]) => {
          for (const tp of tps) for (const key of tp.partitions ? tp.partitions.map((p) => `${tp.topic}:${p}`) : [tp.topic]) paused.add(key);
        },
        commitOffsets: async (offsets: { topic: string; partition: number; offset: string; metadata?: string | null }[]) => {
          if (!running) throw new Error('not a member');
          double.request({ kind: 'commit', group: groupId }, () => {
            for (const o of offsets) double.commit(groupId, o.topic, o.partition, o.offset, o.metadata ?? null);
          });
        },
        disconnect: async () => {
          running = false;
          double.members.delete(groupId);
        },
      };
    };
    return { admin, producer, consumer } as unknown as Kafka;
  }
}
