import { emptyHandled, markHandledSliced } from './dlq-handled';
import type { HandledState } from './dlq-handled';
import type { AuditFields } from './dlq-audit-entry';
import { entriesOfAnotherLog, recordEntry } from './dlq-audit-this-log';
import { ITEMS_PER_YIELD, runNow } from './sliced-work';
import type { SlicedWork } from './sliced-work';
import type { ThisLog } from './dlq-audit-this-log';

export type { ThisLog };

export { FOLDED_AUDIT_FIELDS } from './dlq-audit-entry';
export type { AuditFields } from './dlq-audit-entry';

/**
 * The handled state of each partition of a DLQ as its audit log tells it: every record
 * replayed or discarded, and the expired ranges a krt command passed. Used where the replay
 * group's commits are gone (Kafka deletes an empty group's offsets after
 * `offsets.retention.minutes`, 7 days by default, while the DLQ keeps its records 28 days and
 * the audit log a year): read as "nothing handled", a `replay --all` would have published
 * again every record replayed before. The audit entry of a record is written after its
 * publish was acknowledged and before the commit, so it never names a record not handled.
 */
export function handledFromAuditLog(...args: Parameters<typeof handledFromAuditLogSliced>): Map<number, HandledState> {
  return runNow(handledFromAuditLogSliced(...args));
}

/** handledFromAuditLog as sliced work (sliced-work.ts): a monitor or console runs it without holding the event loop. */
export function* handledFromAuditLogSliced(
  entries: readonly AuditFields[],
  dlqTopic: string,
  partitions: readonly number[],
  ends?: ReadonlyMap<number, bigint>,
  log: ThisLog = {},
): SlicedWork<Map<number, HandledState>> {
  // An entry naming an offset at or past the partition's end read at open names no record of
  // this log (an older topic of this name, or anyone else who writes to the audit topic): taken
  // as this log's, it would count records never replayed as handled.
  const inLog = (partition: number, offset: bigint, inclusiveEnd: boolean) => {
    const end = ends?.get(partition);
    return end === undefined || offset < end || (inclusiveEnd && offset === end);
  };
  // Each partition's expired entries by the log start they passed: a step whose audit was
  // written but whose commit was not writes its gap's entry again when run again, so entries
  // of one belowOffset count once (the largest count).
  const passed = new Map<number, Map<bigint, bigint>>();
  const handled = new Map<number, bigint[]>();
  const ofAnotherLog = yield* entriesOfAnotherLog(entries, dlqTopic, log);
  let n = 0;
  for (const { fields } of entries) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    const partition = fields.partition;
    if (fields.dlqTopic !== dlqTopic || typeof partition !== 'number' || ofAnotherLog(fields)) continue;
    if (fields.action === 'expired' && typeof fields.belowOffset === 'string' && /^\d+$/.test(fields.belowOffset)) {
      const below = BigInt(fields.belowOffset);
      // A log start never moves back within one log: a range passed above today's names another log.
      const start = log.starts?.get(partition);
      if (!inLog(partition, below, true) || (start !== undefined && below > start)) continue;
      const counts = passed.get(partition) ?? new Map<bigint, bigint>();
      const count = typeof fields.count === 'number' && Number.isSafeInteger(fields.count) && fields.count > 0 ? BigInt(fields.count) : 0n;
      if (count >= (counts.get(below) ?? 0n)) counts.set(below, count);
      passed.set(partition, counts);
    } else if (recordEntry(fields, dlqTopic) !== undefined) {
      const offset = BigInt(fields.offset as string);
      if (!inLog(partition, offset, false)) continue;
      const offsets = handled.get(partition) ?? [];
      offsets.push(offset);
      handled.set(partition, offsets);
    }
  }
  const states = new Map<number, HandledState>();
  for (const partition of partitions) {
    const counts = [...(passed.get(partition) ?? new Map<bigint, bigint>())];
    const below = counts.reduce((max, [b]) => (b > max ? b : max), 0n);
    const expired = counts.reduce((sum, [, c]) => sum + c, 0n);
    states.set(partition, yield* markHandledSliced(emptyHandled(below, expired), handled.get(partition) ?? []));
  }
  return states;
}

/**
 * The offsets, per partition, whose records the fold must see to check the entries naming
 * records (ThisLog.marks and written; entries without a mark too, by their records' times):
 * from the lowest to the highest such offset between the partition's log start and its end,
 * inclusive. Partitions with none are absent: nothing to read there.
 */
export function* offsetsToCheck(entries: readonly AuditFields[], dlqTopic: string, partitions: readonly number[], ends: ReadonlyMap<number, bigint>, starts: ReadonlyMap<number, bigint>): SlicedWork<Map<number, { from: bigint; to: bigint }>> {
  const wanted = new Set(partitions);
  const ranges = new Map<number, { from: bigint; to: bigint }>();
  let n = 0;
  for (const { fields } of entries) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    const named = recordEntry(fields, dlqTopic);
    if (named === undefined || !wanted.has(named.partition)) continue;
    const { partition, offset } = named;
    if (offset < (starts.get(partition) ?? 0n) || offset >= (ends.get(partition) ?? 0n)) continue;
    const range = ranges.get(partition);
    ranges.set(partition, range ? { from: offset < range.from ? offset : range.from, to: offset > range.to ? offset : range.to } : { from: offset, to: offset });
  }
  return ranges;
}
