import { emptyHandled, isHandled, markHandledSliced, withRanges } from './dlq-handled';
import type { HandledState } from './dlq-handled';
import type { AuditFields } from './dlq-audit-entry';
import { entriesOfAnotherLog, noRecordsEntry, noRecordsKnown, recordEntry } from './dlq-audit-this-log';
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
  // Each partition's highest floor a step recorded (`handled-below`), within what is gone (floorOf).
  const floors = new Map<number, { below: bigint; expired: bigint }>();
  const handled = new Map<number, bigint[]>();
  // Offsets a commit passed as holding no record (transaction markers, aborted records), with the handled offset next to each.
  const noRecords = new Map<number, { from: bigint; to: bigint; border: bigint }[]>();
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
    } else if (fields.action === 'handled-below') {
      const floor = floorOf(fields, log.starts?.get(partition));
      const best = floors.get(partition);
      // The floor as written, not as taken: one past the end names another log (the monitor's tail drops it too).
      if (floor !== undefined && inLog(partition, floor.written, true) && (best === undefined || floor.below > best.below || (floor.below === best.below && floor.expired > best.expired))) floors.set(partition, floor);
    } else if (recordEntry(fields, dlqTopic) !== undefined) {
      const offset = BigInt(fields.offset as string);
      if (!inLog(partition, offset, false)) continue;
      const offsets = handled.get(partition) ?? [];
      offsets.push(offset);
      handled.set(partition, offsets);
    } else {
      // Taken only where this log is known to hold no record there (noRecordsKnown), and
      // below absorbed only next to an offset the entries above handle: an entry of an
      // earlier log of this name never makes a record of this one count as handled.
      const range = noRecordsEntry(fields, dlqTopic);
      if (range === undefined || !inLog(partition, range.to, false) || !noRecordsKnown(log, range)) continue;
      const ranges = noRecords.get(partition) ?? [];
      ranges.push(range);
      noRecords.set(partition, ranges);
    }
  }
  const states = new Map<number, HandledState>();
  for (const partition of partitions) {
    // A floor counts the expired ranges passed below it; those passed above it come after it.
    const floor = floors.get(partition) ?? { below: 0n, expired: 0n };
    const counts = [...(passed.get(partition) ?? new Map<bigint, bigint>())].filter(([b]) => b > floor.below);
    const below = counts.reduce((max, [b]) => (b > max ? b : max), floor.below);
    const expired = counts.reduce((sum, [, c]) => sum + c, floor.expired);
    const state = yield* markHandledSliced(emptyHandled(below, expired), handled.get(partition) ?? []);
    const bordered = yield* borderedRanges(state, noRecords.get(partition) ?? []);
    states.set(partition, bordered.length === 0 ? state : withRanges(state, bordered));
  }
  return states;
}

/**
 * What a `handled-below` entry (src/dlq/audit.ts) tells of the offsets retention deleted:
 * every one below its floor was handled or counted as expired, `expired` of them expired.
 * Taken only up to the log start: below it no record is left to list, so an entry of an
 * earlier log of the DLQ's name (one not shown by a mark: entriesOfAnotherLog) changes at
 * most the expired count, never which records are listed; at and above it the record
 * entries say what is handled, checked against the records. Undefined for a malformed
 * entry, where the log start is not known, or for a count no step of this log can have
 * written (more expired records than offsets below the floor taken). `written` is the floor
 * as the entry has it, for the check against the partition's end.
 */
function floorOf(fields: AuditFields['fields'], start: bigint | undefined): { below: bigint; expired: bigint; written: bigint } | undefined {
  const { belowOffset, expiredTotal } = fields;
  if (start === undefined || typeof belowOffset !== 'string' || !/^\d+$/.test(belowOffset) || typeof expiredTotal !== 'string' || !/^\d+$/.test(expiredTotal)) return undefined;
  const written = BigInt(belowOffset);
  const below = written < start ? written : start;
  const expired = BigInt(expiredTotal);
  // A step counts as expired only records below the log start it passed, at most the log start
  // now and at most its floor: a count above that is of another log (an earlier topic of the
  // name, whose floor the clamp brought down to this one's start, 0 for a topic created again),
  // or a stray writer's, and would page on records this log never held.
  return expired <= below ? { below, expired, written } : undefined;
}

type NoRecordRange = { from: bigint; to: bigint; border: bigint };

/**
 * The no-record ranges the fold passes, as the commits absorbed them (absorbNoRecordOffsets):
 * each whose border, the offset its entry names, is handled, by the records' state or by a
 * range taken before. Two sessions' commits may pass touching ranges, the later one bordered
 * by a marker the earlier passed (a session reads on from its commit): its border is handled
 * only through that earlier range. So ranges are taken until none more is: ascending passes
 * take the chains hanging on a left border, descending ones those hanging on a right border.
 */
function* borderedRanges(state: HandledState, ranges: readonly NoRecordRange[]): SlicedWork<NoRecordRange[]> {
  // One of each range: a rerun writes a step's entries again.
  const pending = [...new Map(ranges.map((r) => [`${r.from}-${r.to}-${r.border}`, r])).values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const taken = new Set<NoRecordRange>();
  const takenEdges = new Set<bigint>();
  const handled = (offset: bigint) => takenEdges.has(offset) || isHandled(state, offset);
  let n = 0;
  for (let ascending = true, progress = true; progress; ascending = !ascending) {
    progress = false;
    for (let i = 0; i < pending.length; i++) {
      if (++n % ITEMS_PER_YIELD === 0) yield;
      const range = pending[ascending ? i : pending.length - 1 - i]!;
      if (taken.has(range) || !handled(range.border)) continue;
      taken.add(range);
      // A border next to a taken range is one of its ends.
      takenEdges.add(range.from).add(range.to);
      progress = true;
    }
  }
  return [...taken];
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
    // A `no-records` entry: its range and border, to find no record in the one and its record at the other.
    const passed = named === undefined ? noRecordsEntry(fields, dlqTopic) : undefined;
    const partition = named?.partition ?? passed?.partition;
    if (partition === undefined || !wanted.has(partition)) continue;
    const start = starts.get(partition) ?? 0n;
    const end = ends.get(partition) ?? 0n;
    let low = named?.offset ?? (passed!.border < passed!.from ? passed!.border : passed!.from);
    let high = named?.offset ?? (passed!.border > passed!.to ? passed!.border : passed!.to);
    if (low < start) low = start;
    if (high >= end) high = end - 1n;
    if (low > high) continue;
    const range = ranges.get(partition);
    ranges.set(partition, range ? { from: low < range.from ? low : range.from, to: high > range.to ? high : range.to } : { from: low, to: high });
  }
  return ranges;
}
