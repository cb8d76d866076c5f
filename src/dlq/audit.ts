import type { Producer } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import type { HandledState } from '../runtime/dlq-handled';
import { sendChecked } from './checked-send';
import type { DlqRecord, ExpiredRecords, NoRecordsPassed } from './session';

export interface AuditEntry {
  readonly action: 'replayed' | 'discarded';
  readonly by: string;
  readonly reason?: string;
}

/** One message of the audit log: the record's id (or the expired range) and the entry as JSON. */
export interface AuditMessage {
  readonly key: string;
  readonly value: string;
}

/** What retention deleted unhandled, as a krt command found it before passing the gap. */
export const EXPIRED_REASON = 'deleted by retention before anyone replayed or discarded them';

/** What a `no-records` entry records: offsets a commit passed with the handled record next to them. */
export const NO_RECORDS_REASON = 'offsets holding no record (transaction markers, aborted records), passed with the handled record next to them';

/** What a `handled-below` entry records: the handled state's floor after the step that writes it. */
export const HANDLED_BELOW_REASON = 'every offset below belowOffset is handled or counted as expired (expiredTotal of them, ever) once this step is committed';

/**
 * A partition's handled state after a step, as its `handled-below` entry records it: where
 * its run of handled offsets from the start ends, and how many records retention deleted
 * unhandled below it, ever. It outlives the entries of the records below it: once the
 * audit log's own retention deleted those, a state rebuilt from the log would otherwise
 * count every one of them as expired unhandled (dlq-handled-from-audit.ts).
 */
export interface HandledBelow {
  readonly partition: number;
  readonly belowOffset: bigint;
  readonly expiredTotal: bigint;
}

/** The `handled-below` record of each state a commit writes. */
export function handledBelowOf(states: ReadonlyMap<number, HandledState>): HandledBelow[] {
  return [...states].map(([partition, state]) => ({ partition, belowOffset: state.committed, expiredTotal: state.expired }));
}

/**
 * The most characters an entry copies of any one text it did not choose: a dead letter's
 * headers (whatever bytes its producer wrote) and the operator's name and reason. Enough for
 * any error name or topic name (Kafka's are at most 249), and so every entry is a few
 * kilobytes at most, whatever a hostile header holds: an entry the audit log refused after
 * its record was published would leave a replay unaudited and repeated on every try.
 */
export const AUDIT_COPIED_CHARS = 1024;

/** The audit log's share of one step, in bytes of its entries: far below any broker's message limit (1 MB by default). */
export const AUDIT_STEP_BYTES = 256 * 1024;

/** A text as an entry copies it: cut at AUDIT_COPIED_CHARS, and says so. */
export function copiedText(text: string): string {
  return text.length <= AUDIT_COPIED_CHARS ? text : `${text.slice(0, AUDIT_COPIED_CHARS)}… (${text.length} characters in all)`;
}

/**
 * The entries of one step: one per record, one per partition whose expired records the
 * same commit passes, one per range of offsets holding no record the commit passes
 * (`no-records`: naming the handled offset next to it, and that record's mark when known),
 * so that a state rebuilt from the audit log once the commits are gone passes them too, and
 * one per partition the commit writes (`handled-below`: its state's floor, HandledBelow).
 * Built before the step publishes anything. Each names the DLQ topic's id where the session
 * read one (`dlqTopicId`): a DLQ created again under its name has another, and a fold tells
 * this log's entries from an earlier one's by it (dlq-audit-this-log.ts).
 */
export function auditMessages(
  consumer: ConsumerModel,
  step: { records: readonly DlqRecord[]; entry: AuditEntry; expired: readonly ExpiredRecords[]; noRecords?: readonly NoRecordsPassed[]; handledBelow?: readonly HandledBelow[] },
  now: number,
  dlqTopicId?: string,
): AuditMessage[] {
  const at = new Date(now).toISOString();
  const common = { at, consumer: consumer.name, dlqTopic: consumer.dlq.name, ...(dlqTopicId === undefined ? {} : { dlqTopicId }) };
  const decided = { ...step.entry, by: copiedText(step.entry.by), ...(step.entry.reason === undefined ? {} : { reason: copiedText(step.entry.reason) }) };
  const expired = step.expired.map((e) => ({
    key: `${e.partition}:expired-below-${e.logStart}`,
    value: JSON.stringify({ action: 'expired', by: decided.by, reason: EXPIRED_REASON, ...common, partition: e.partition, count: e.unrecorded, belowOffset: e.logStart.toString() }),
  }));
  const decisions = step.records.map((record) => ({
    key: record.id,
    value: JSON.stringify({
      ...decided,
      ...common,
      partition: record.partition,
      offset: record.offset.toString(),
      // Which record of this offset: a DLQ topic created again has other records at the same offsets.
      ...(record.mark === undefined ? {} : { mark: record.mark }),
      originalTopic: record.decoded.originalTopic === undefined ? null : copiedText(record.decoded.originalTopic),
      errorClass: record.decoded.errorClass === undefined ? null : copiedText(record.decoded.errorClass),
      replayCount: record.replayCount,
    }),
  }));
  // After the records': a fold reads a range only next to an offset its record entries handle.
  const noRecords = (step.noRecords ?? []).map((n) => ({
    key: `${n.partition}:no-records-${n.from}-${n.to}`,
    value: JSON.stringify({
      action: 'no-records',
      by: decided.by,
      reason: NO_RECORDS_REASON,
      ...common,
      partition: n.partition,
      from: n.from.toString(),
      to: n.to.toString(),
      offset: n.border.toString(),
      ...(n.mark === undefined ? {} : { mark: n.mark }),
    }),
  }));
  // Last: the floor holds once every entry before it is written.
  const floors = (step.handledBelow ?? []).map((h) => ({
    key: `${h.partition}:handled-below-${h.belowOffset}`,
    value: JSON.stringify({ action: 'handled-below', by: decided.by, reason: HANDLED_BELOW_REASON, ...common, partition: h.partition, belowOffset: h.belowOffset.toString(), expiredTotal: h.expiredTotal.toString() }),
  }));
  return [...expired, ...decisions, ...noRecords, ...floors];
}

/** The size an entry takes in the audit log's batch: its key and value in UTF-8. */
export function auditMessageBytes(message: AuditMessage): number {
  return Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
}

/** Appends a step's entries to the consumer's DLQ audit log in one acknowledged send. */
export async function appendToAuditLog(producer: Producer, consumer: ConsumerModel, messages: readonly AuditMessage[]): Promise<void> {
  await sendChecked(producer, consumer.dlqAudit.name, consumer.dlqAudit.partitions, messages);
}
