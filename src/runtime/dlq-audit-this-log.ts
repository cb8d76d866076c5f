import type { AuditFields } from './dlq-audit-entry';
import { markTime } from './record-mark';
import { kafkaSpelling } from './topic-id';
import { ITEMS_PER_YIELD } from './sliced-work';
import type { SlicedWork } from './sliced-work';

/**
 * What the reader knows of the DLQ's log as it is now, to tell its entries from those of an
 * earlier topic of the same name (deleted and created again, the audit log kept): by its
 * topic id where the reader reads one, else (kafkajs reads no topic ids) by its log starts
 * and by its records themselves.
 */
export interface ThisLog {
  /**
   * The topic's id now (topic-id.ts): an entry that names one (`dlqTopicId`, written by a
   * session that read it) is of this log when it names this id, and of another when it names
   * another, whatever its record shows. Entries without one are judged as below.
   */
  readonly topicId?: string;
  /** Each partition's log start now. */
  readonly starts?: ReadonlyMap<number, bigint>;
  /**
   * The mark (recordMark in record-mark.ts) of the record at each offset an entry names,
   * from the log start to the end: read from the log. Without it, marks are not checked (a
   * monitor port that cannot read records, MonitorPort.marksAt).
   */
  readonly marks?: ReadonlyMap<number, ReadonlyMap<bigint, string>>;
  /** The timestamp (epoch ms) of the record at each offset read; by default the time its mark carries (markTime). */
  readonly written?: ReadonlyMap<number, ReadonlyMap<bigint, number>>;
  /**
   * The offsets each partition's read of `marks` covered, `to` exclusive: an offset there
   * without a mark holds no record. Without it, no offset is known to hold none, and no
   * `no-records` entry above the log start is taken.
   */
  readonly covered?: ReadonlyMap<number, { readonly from: bigint; readonly to: bigint }>;
}

/**
 * How far ahead of the replaying host's clock a DLQ producer's clock may stamp a record that
 * an entry of this log still names: far beyond any two clocks kept in sync (a broker can
 * refuse records stamped further ahead than its `message.timestamp.after.max.ms`).
 */
export const STAMPED_AHEAD_MS = 3_600_000;

/** The partition and offset of a `replayed` or `discarded` entry of this DLQ; undefined for any other. */
export function recordEntry(fields: AuditFields['fields'], dlqTopic: string): { partition: number; offset: bigint } | undefined {
  const { partition, offset, action } = fields;
  if (fields.dlqTopic !== dlqTopic || typeof partition !== 'number') return undefined;
  if ((action !== 'replayed' && action !== 'discarded') || typeof offset !== 'string' || !/^\d+$/.test(offset)) return undefined;
  return { partition, offset: BigInt(offset) };
}

/**
 * The range of a `no-records` entry of this DLQ (offsets a commit passed as holding no
 * record) and the handled offset next to it that let the commit pass them (`from - 1`, -1
 * for a range from the partition's first offset, or `to + 1`); undefined for any other entry.
 */
export function noRecordsEntry(fields: AuditFields['fields'], dlqTopic: string): { partition: number; from: bigint; to: bigint; border: bigint } | undefined {
  const { partition, from, to, offset } = fields;
  if (fields.dlqTopic !== dlqTopic || typeof partition !== 'number' || fields.action !== 'no-records') return undefined;
  if (typeof from !== 'string' || !/^\d+$/.test(from) || typeof to !== 'string' || !/^\d+$/.test(to) || typeof offset !== 'string' || !/^(-1|\d+)$/.test(offset)) return undefined;
  const range = { partition, from: BigInt(from), to: BigInt(to), border: BigInt(offset) };
  return range.from <= range.to && (range.border === range.from - 1n || range.border === range.to + 1n) ? range : undefined;
}

/**
 * What this log shows of a `no-records` entry: 'inside' when it holds a record within the
 * range (read, where the read covered it), 'mark' (or 'time') when the record at the border
 * is another one; undefined when it shows nothing. A record inside proves only that this
 * entry is wrong, not when another log was the topic's (a stray writer needs no mark to
 * write one): it leaves the entry out alone. Whether the entry may be taken at all is the
 * fold's (noRecordsKnown).
 */
function anotherNoRecords(log: ThisLog, fields: AuditFields['fields'], range: { partition: number; from: bigint; to: bigint; border: bigint }, readOffsets: (partition: number) => readonly bigint[]): 'mark' | 'time' | 'inside' | undefined {
  if (recordInside(log, range, readOffsets)) return 'inside';
  return range.border < 0n ? undefined : anotherRecord(log, fields, range.partition, range.border);
}

/**
 * Whether the log as read holds a record within a `no-records` range (only offsets read
 * count): the entry is wrong, whichever log it is of, its topic id naming this one too.
 */
function recordInside(log: ThisLog, range: { partition: number; from: bigint; to: bigint }, readOffsets: (partition: number) => readonly bigint[]): boolean {
  const covered = log.covered?.get(range.partition);
  if (!log.marks?.has(range.partition) || covered === undefined) return false;
  const start = log.starts?.get(range.partition) ?? 0n;
  const lowest = [range.from, covered.from, start].reduce((a, b) => (a > b ? a : b));
  const highest = range.to < covered.to - 1n ? range.to : covered.to - 1n;
  return lowest <= highest && anyWithin(readOffsets(range.partition), lowest, highest);
}

/** Whether the sorted offsets hold one in [from, to]: a binary search, as a stray range may span millions of offsets. */
function anyWithin(sorted: readonly bigint[], from: bigint, to: bigint): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < from) low = middle + 1;
    else high = middle;
  }
  return low < sorted.length && sorted[low]! <= to;
}

/**
 * Whether this log tells that every offset of a `no-records` range it still holds (from its
 * start) holds no record: the marks' read covered them. A range wholly below the log start is
 * known as far as it can be (retention deleted it, with whatever it held); one the read did
 * not reach, or a reader without marks, is not known, and the fold leaves it out (its offsets
 * then count as unhandled: the alerts may page on a marker, they never hide a record).
 */
export function noRecordsKnown(log: ThisLog, range: { partition: number; from: bigint; to: bigint }): boolean {
  const start = log.starts?.get(range.partition) ?? 0n;
  if (range.to < start) return true;
  const covered = log.covered?.get(range.partition);
  if (log.marks === undefined || covered === undefined) return false;
  const from = range.from > start ? range.from : start;
  return covered.from <= from && range.to < covered.to;
}

const timeOf = (fields: AuditFields['fields']): number | undefined => {
  const at = typeof fields.at === 'string' ? Date.parse(fields.at) : NaN;
  return Number.isFinite(at) ? at : undefined;
};

/**
 * What the record this log holds at an entry's offset shows of the entry: 'mark' when it has
 * another mark than the one the entry carries (another record, for certain), 'time' when it
 * was written after the entry (stamped later than the entry's time by more than a producer's
 * clock may run ahead of the replaying host's), undefined when it shows nothing (the same
 * record, or one not read: below the log start, or the read did not reach it).
 */
function anotherRecord(log: ThisLog, fields: AuditFields['fields'], partition: number, offset: bigint): 'mark' | 'time' | undefined {
  if (log.marks === undefined || offset < (log.starts?.get(partition) ?? 0n)) return undefined;
  const read = log.marks.get(partition)?.get(offset);
  if (read === undefined) return undefined;
  if (typeof fields.mark === 'string' && read !== fields.mark) return 'mark';
  const written = log.written === undefined ? markTime(read) : log.written.get(partition)?.get(offset);
  const at = timeOf(fields);
  return written !== undefined && at !== undefined && written > at + STAMPED_AHEAD_MS ? 'time' : undefined;
}

/**
 * Which entries about this DLQ are of an earlier log of its name: those whose record shows
 * they named another (anotherRecord), and every entry written no later than the last of those
 * shown by its mark, marked or not, of any action and partition: the topic's logs follow one
 * another in time, so an entry written while an earlier log was the topic's is of an earlier
 * log too. A record's time says less than its mark (two hosts' clocks): an entry it shows is
 * left out alone. An entry written before marks, naming a record stamped before it, is
 * otherwise taken: it cannot be told from one of this log. Where the reader knows the topic's
 * id (ThisLog.topicId), an entry naming it is of this log, and one naming another is shown as
 * by a mark.
 */
export function* entriesOfAnotherLog(entries: readonly AuditFields[], dlqTopic: string, log: ThisLog): SlicedWork<(fields: AuditFields['fields']) => boolean> {
  const shown = new Set<AuditFields['fields']>();
  let until: number | undefined;
  let n = 0;
  // The offsets the marks' read found a record at, sorted once per partition when a `no-records` entry asks.
  const sortedReads = new Map<number, bigint[]>();
  const readOffsets = (partition: number): readonly bigint[] => {
    let sorted = sortedReads.get(partition);
    if (sorted === undefined) {
      sorted = [...(log.marks?.get(partition)?.keys() ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      sortedReads.set(partition, sorted);
    }
    return sorted;
  };
  // Ids in one spelling (kafkaSpelling): an entry may spell the reader's id in the other base64 alphabet.
  const thisId = log.topicId === undefined ? undefined : kafkaSpelling(log.topicId);
  const idOf = (fields: AuditFields['fields']) => (thisId !== undefined && typeof fields.dlqTopicId === 'string' ? kafkaSpelling(fields.dlqTopicId) : undefined);
  for (const { fields } of entries) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    const id = idOf(fields);
    if (id !== undefined) {
      if (fields.dlqTopic !== dlqTopic) continue;
      if (id === thisId) {
        // The id says which log the entry is of, not that it is right: a record read inside a `no-records` range, or
        // another mark at the offset an entry names (within one log an offset's record never changes), leaves it out alone.
        const named = recordEntry(fields, dlqTopic);
        const range = named === undefined ? noRecordsEntry(fields, dlqTopic) : undefined;
        if (range !== undefined ? recordInside(log, range, readOffsets) : named !== undefined && anotherRecord(log, fields, named.partition, named.offset) === 'mark') shown.add(fields);
        continue;
      }
      // Another id: as sure as another mark, and so is every entry written before it.
      shown.add(fields);
      const at = timeOf(fields);
      if (at !== undefined && (until === undefined || at > until)) until = at;
      continue;
    }
    const named = recordEntry(fields, dlqTopic);
    const range = named === undefined ? noRecordsEntry(fields, dlqTopic) : undefined;
    const by = named !== undefined ? anotherRecord(log, fields, named.partition, named.offset) : range !== undefined ? anotherNoRecords(log, fields, range, readOffsets) : undefined;
    if (by === undefined) continue;
    shown.add(fields);
    const at = timeOf(fields);
    if (by === 'mark' && at !== undefined && (until === undefined || at > until)) until = at;
  }
  return (fields) => {
    if (shown.has(fields)) return true;
    if (thisId !== undefined && idOf(fields) === thisId) return false;
    const at = timeOf(fields);
    return until !== undefined && at !== undefined && at <= until;
  };
}
