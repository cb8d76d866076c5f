import type { Consumer, Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { decodeRetryHeaders } from '../runtime/headers';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { decodeHandled, encodeHandled, isHandled, markHandled } from '../runtime/dlq-handled';
import type { HandledState } from '../runtime/dlq-handled';

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
}

export class DlqError extends Error {}

/**
 * A session in the consumer's replay group: it reads every unhandled record of the DLQ
 * (from the group's committed offsets to the end, skipping records handled beyond them)
 * and commits records as handled. One krt DLQ command per consumer at a time: a second
 * member of the group would take half the partitions.
 */
export class DlqSession {
  private constructor(
    readonly consumer: ConsumerModel,
    readonly records: readonly DlqRecord[],
    private readonly states: Map<number, HandledState>,
    private readonly client: Consumer | undefined,
  ) {}

  static async open(kafka: Kafka, consumer: ConsumerModel, timeoutMs = 60_000): Promise<DlqSession> {
    const topic = consumer.dlq.name;
    const admin = kafka.admin();
    await admin.connect();
    let ends: Map<number, bigint>;
    const states = new Map<number, HandledState>();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      ends = new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
      const lows = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
      const [committed] = await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [topic] });
      for (const p of committed?.partitions ?? []) {
        const offset = BigInt(p.offset) < 0n ? (lows.get(p.partition) ?? 0n) : BigInt(p.offset);
        states.set(p.partition, decodeHandled(offset, p.metadata));
      }
    } finally {
      await admin.disconnect();
    }
    const pending = [...ends].filter(([partition, end]) => (states.get(partition)?.committed ?? 0n) < end);
    if (pending.length === 0) return new DlqSession(consumer, [], states, undefined);

    const client = kafka.consumer({ groupId: consumer.groups.replay, retry: { retries: 5 } });
    const records: DlqRecord[] = [];
    await client.connect();
    await client.subscribe({ topics: [topic], fromBeginning: true });
    const waiting = new Set(pending.map(([partition]) => partition));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DlqError(`could not read ${topic} to its end within ${timeoutMs / 1000}s`)), timeoutMs);
      client
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const offset = BigInt(message.offset);
            const end = ends.get(partition) ?? 0n;
            const state = states.get(partition) ?? decodeHandled(0n, null);
            if (offset < end && !isHandled(state, offset)) {
              records.push({
                id: `${partition}:${offset}`,
                partition,
                offset,
                timestamp: Number(message.timestamp),
                key: message.key,
                value: message.value,
                headers: (message.headers ?? {}) as RawHeaders,
                decoded: decodeRetryHeaders(message.headers as RawHeaders),
              });
            }
            if (offset + 1n >= end && waiting.delete(partition)) {
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
    records.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
    return new DlqSession(consumer, records, states, client);
  }

  /** Commits these records as handled; the commit moves over every contiguous handled record. */
  async markHandled(records: readonly DlqRecord[]): Promise<void> {
    if (!this.client || records.length === 0) return;
    const byPartition = new Map<number, bigint[]>();
    for (const r of records) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r.offset]);
    const commits = [...byPartition].map(([partition, offsets]) => {
      const next = markHandled(this.states.get(partition) ?? decodeHandled(0n, null), offsets);
      this.states.set(partition, next);
      const metadata = encodeHandled(next);
      if (metadata.length > 4000) throw new DlqError(`too many scattered handled records in partition ${partition}; replay or discard the records before them first`);
      return { topic: this.consumer.dlq.name, partition, offset: next.committed.toString(), metadata };
    });
    await this.client.commitOffsets(commits);
  }

  async close(): Promise<void> {
    await this.client?.disconnect();
  }
}
