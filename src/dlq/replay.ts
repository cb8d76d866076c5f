import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { HEADERS, REPLAY_COUNT_HEADER } from '../naming/headers';
import { passThroughHeaders } from '../runtime/headers';
import { audit } from './audit';
import type { AuditEntry } from './audit';
import { rateLimiter } from './rate-limit';
import { DlqError } from './session';
import type { DlqRecord, DlqSession } from './session';

export interface ReplayOptions {
  /** Records per second at most, in any one-second window. */
  readonly rate: number;
  readonly by: string;
  readonly onProgress?: (done: number, total: number) => void;
  readonly now?: () => number;
}

/**
 * Records per publish, audit and commit step. A crash repeats at most the step in flight,
 * so it stays small; the rate limit makes it smaller still (never more than one second's worth).
 */
export const MAX_STEP_RECORDS = 500;

/** Where a record goes back to: its original topic, which must be this consumer's main topic. */
export function replayTarget(consumer: ConsumerModel, record: DlqRecord): { topic: string; partition?: number } {
  const topic = record.decoded.originalTopic ?? consumer.mainTopic.name;
  if (topic !== consumer.mainTopic.name) {
    throw new DlqError(`record ${record.id} came from ${topic}, not from ${consumer.mainTopic.name}; replay it with the tools of that topic's consumer`);
  }
  const partition = record.decoded.originalPartition;
  return { topic, partition: partition !== undefined && partition < consumer.mainTopic.partitions ? partition : undefined };
}

/** Refuses, before anything is published, a selection whose handling could not all be recorded. */
export function checkRecordable(session: DlqSession, records: readonly DlqRecord[]): void {
  const fits = session.recordablePrefix(records);
  if (fits < records.length) {
    throw new DlqError(
      `only the first ${fits} of these ${records.length} records can be recorded as handled: the rest would leave handled records too scattered for the replay group's commit. Nothing was published; run again with --limit ${fits}, or first handle the other records among them`,
    );
  }
}

/**
 * Publishes the records back to their original topic (same key, value and headers, the
 * x-* headers reset, x-replayed-from-dlq set, x-replay-count raised), in steps: each step
 * is checked to be recordable, published and acknowledged, written to the audit log, and
 * only then committed as handled. A crash never loses a replay and repeats at most the
 * records of the step in flight; a rerun never republishes a committed one.
 */
export async function replayRecords(kafka: Kafka, session: DlqSession, records: readonly DlqRecord[], options: ReplayOptions): Promise<number> {
  for (const r of records) replayTarget(session.consumer, r);
  checkRecordable(session, records);
  const limiter = rateLimiter(options.rate);
  return inSteps(kafka, session, records, Math.min(MAX_STEP_RECORDS, limiter.capacity), { action: 'replayed', by: options.by }, options, async (producer, step) => {
    const acknowledged = await limiter.take(step.length);
    try {
      await producer.send({ topic: session.consumer.mainTopic.name, acks: -1, messages: step.map((r) => replayMessage(session, r)) });
    } finally {
      acknowledged();
    }
  });
}

/** Records a discard with its reason and who decided, then commits the records as handled. */
export async function discardRecords(kafka: Kafka, session: DlqSession, records: readonly DlqRecord[], decision: { reason: string; by: string }, now = Date.now): Promise<number> {
  checkRecordable(session, records);
  return inSteps(kafka, session, records, MAX_STEP_RECORDS, { action: 'discarded', ...decision }, { now }, async () => {});
}

function replayMessage(session: DlqSession, record: DlqRecord) {
  const target = replayTarget(session.consumer, record);
  return {
    key: record.key,
    value: record.value,
    ...(target.partition !== undefined ? { partition: target.partition } : {}),
    headers: {
      ...passThroughHeaders(record.headers),
      [HEADERS.attempt]: '1',
      [HEADERS.replayedFromDlq]: `${session.consumer.dlq.name}/${record.id}`,
      [REPLAY_COUNT_HEADER]: String(record.replayCount + 1),
    },
  };
}

async function inSteps(
  kafka: Kafka,
  session: DlqSession,
  records: readonly DlqRecord[],
  stepSize: number,
  entry: AuditEntry,
  options: { onProgress?: (done: number, total: number) => void; now?: () => number },
  publish: (producer: ReturnType<Kafka['producer']>, step: readonly DlqRecord[]) => Promise<void>,
): Promise<number> {
  const now = options.now ?? Date.now;
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (let done = 0; done < records.length; ) {
      const step = records.slice(done, done + stepSize);
      const prepared = session.prepare(step);
      await publish(producer, step);
      await audit(producer, session.consumer, { records: step, entry, expired: prepared.expired }, now());
      await session.commit(prepared);
      done += step.length;
      options.onProgress?.(done, records.length);
    }
  } finally {
    await producer.disconnect();
  }
  return records.length;
}
