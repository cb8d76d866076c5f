import type { Producer } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import type { DlqRecord, ExpiredRecords } from './session';

export interface AuditEntry {
  readonly action: 'replayed' | 'discarded';
  readonly by: string;
  readonly reason?: string;
}

/** What retention deleted unhandled, as a krt command found it before passing the gap. */
export const EXPIRED_REASON = 'deleted by retention before anyone replayed or discarded them';

/**
 * Appends decisions to the consumer's DLQ audit log in one acknowledged send: one entry
 * per record, and one per partition whose expired records the same commit passes.
 */
export async function audit(
  producer: Producer,
  consumer: ConsumerModel,
  step: { records: readonly DlqRecord[]; entry: AuditEntry; expired: readonly ExpiredRecords[] },
  now: number,
): Promise<void> {
  const at = new Date(now).toISOString();
  const common = { at, consumer: consumer.name, dlqTopic: consumer.dlq.name };
  const expired = step.expired.map((e) => ({
    key: `${e.partition}:expired-below-${e.logStart}`,
    value: JSON.stringify({ action: 'expired', by: step.entry.by, reason: EXPIRED_REASON, ...common, partition: e.partition, count: e.unrecorded, belowOffset: e.logStart.toString() }),
  }));
  const decisions = step.records.map((record) => ({
    key: record.id,
    value: JSON.stringify({
      ...step.entry,
      ...common,
      partition: record.partition,
      offset: record.offset.toString(),
      originalTopic: record.decoded.originalTopic ?? null,
      errorClass: record.decoded.errorClass ?? null,
      replayCount: record.replayCount,
    }),
  }));
  await producer.send({ topic: consumer.dlqAudit.name, acks: -1, messages: [...expired, ...decisions] });
}
