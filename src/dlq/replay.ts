import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { HEADERS } from '../naming/headers';
import { passThroughHeaders } from '../runtime/headers';
import { audit } from './audit';
import { DlqError } from './session';
import type { DlqRecord, DlqSession } from './session';

export interface ReplayOptions {
  /** Records per second at most. */
  readonly rate: number;
  readonly by: string;
  readonly onProgress?: (done: number, total: number) => void;
  readonly now?: () => number;
}

/** Where a record goes back to: its original topic, which must be this consumer's main topic. */
export function replayTarget(consumer: ConsumerModel, record: DlqRecord): { topic: string; partition?: number } {
  const topic = record.decoded.originalTopic ?? consumer.mainTopic.name;
  if (topic !== consumer.mainTopic.name) {
    throw new DlqError(`record ${record.id} came from ${topic}, not from ${consumer.mainTopic.name}; replay it with the tools of that topic's consumer`);
  }
  const partition = record.decoded.originalPartition;
  return { topic, partition: partition !== undefined && partition < consumer.mainTopic.partitions ? partition : undefined };
}

/**
 * Publishes each record back to its original topic (same key, value and headers, the
 * x-* headers reset and x-replayed-from-dlq set), waits for the acknowledgement, writes
 * the audit entry, and only then commits it as handled: a crash never loses a replay,
 * and repeats at most the one in flight.
 */
export async function replayRecords(kafka: Kafka, session: DlqSession, records: readonly DlqRecord[], options: ReplayOptions): Promise<number> {
  const now = options.now ?? Date.now;
  for (const r of records) replayTarget(session.consumer, r);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const interval = 1000 / options.rate;
  const started = Date.now();
  try {
    for (let i = 0; i < records.length; i++) {
      const wait = started + i * interval - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const record = records[i]!;
      const target = replayTarget(session.consumer, record);
      await producer.send({
        topic: target.topic,
        acks: -1,
        messages: [
          {
            key: record.key,
            value: record.value,
            ...(target.partition !== undefined ? { partition: target.partition } : {}),
            headers: {
              ...passThroughHeaders(record.headers),
              [HEADERS.attempt]: '1',
              [HEADERS.replayedFromDlq]: `${session.consumer.dlq.name}/${record.id}`,
            },
          },
        ],
      });
      await audit(producer, session.consumer, record, { action: 'replayed', by: options.by }, now());
      await session.markHandled([record]);
      options.onProgress?.(i + 1, records.length);
    }
  } finally {
    await producer.disconnect();
  }
  return records.length;
}

/** Records a discard with its reason and who decided, then commits the records as handled. */
export async function discardRecords(kafka: Kafka, session: DlqSession, records: readonly DlqRecord[], decision: { reason: string; by: string }, now = Date.now): Promise<number> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (const record of records) {
      await audit(producer, session.consumer, record, { action: 'discarded', ...decision }, now());
      await session.markHandled([record]);
    }
  } finally {
    await producer.disconnect();
  }
  return records.length;
}
