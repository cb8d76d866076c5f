import { FOLDED_AUDIT_FIELDS } from './dlq-audit-entry';
import type { AuditFields } from './dlq-audit-entry';
import { KrtError } from './krt-error';
import type { TopicRead } from './monitor-port';
import { ITEMS_PER_YIELD, runSliced } from './sliced-work';
import type { SlicedWork } from './sliced-work';

/** The actions the fold reads (dlq-handled-from-audit.ts): kept in step with it. */
const ACTIONS = new Set(['replayed', 'discarded', 'expired', 'no-records', 'handled-below']);

export type ReadFrom = (topic: string, from: ReadonlyMap<number, string>, signal?: AbortSignal) => Promise<TopicRead>;
/** The DLQ's end offset of each partition, read when called. */
export type DlqEnds = (signal?: AbortSignal) => Promise<ReadonlyMap<number, bigint>>;

/**
 * The entries of a DLQ's audit log the monitor has read, kept between polls so each poll
 * reads only what was written since: the whole log (a year by default) is read once, at
 * the first poll that needs it. Entries retention deleted since stay counted: the records
 * they name were handled all the same.
 */
export interface AuditTail {
  entries(signal?: AbortSignal): Promise<readonly AuditFields[]>;
  /** Changes each time the tail starts over (the audit topic created again): entries of one generation are what a cache may key on. */
  readonly generation: number;
}

/**
 * `dlqEnds`, when given, is read after each audit read that found new entries: an entry names
 * a record that was in the DLQ before the entry was written, so one naming an offset at or
 * past the end read after it names no record of this DLQ (an older topic of the name, a stray
 * writer) and is dropped for good. Kept, the fold would judge it against the ends of a later
 * poll, and count the record that comes to hold that offset, never handled, as handled.
 */
export function createAuditTail(read: ReadFrom, auditTopic: string, dlqTopic: string, dlqEnds?: DlqEnds): AuditTail {
  let next = new Map<number, string>();
  let kept: AuditFields[] = [];
  let generation = 0;

  async function readNew(signal?: AbortSignal): Promise<TopicRead> {
    const read1 = await read(auditTopic, next, signal);
    // An end below where the last read stopped: the audit topic was created again, and what
    // was kept named the old one's records.
    if (![...next].some(([partition, offset]) => BigInt(read1.ends.get(partition) ?? '0') < BigInt(offset))) return read1;
    next = new Map();
    kept = [];
    generation += 1;
    return read(auditTopic, next, signal);
  }

  return {
    get generation() {
      return generation;
    },
    async entries(signal) {
      const { records, ends, complete } = await readNew(signal);
      const fresh = await entriesAbout(dlqTopic, records, signal);
      const dlqEnd = fresh.length > 0 && dlqEnds ? await dlqEnds(signal) : undefined;
      // A new list, not the old one grown: a fold of an earlier poll may still be iterating that one.
      if (fresh.length > 0) kept = kept.concat(dlqEnd === undefined ? fresh : await runSliced(namingRecordsBelow(fresh, dlqEnd), signal));
      next = new Map([...next, ...ends]);
      // What a read that ran out of time got is kept, so each poll gets further; until one
      // reaches the end, the handled state is not known and the poll fails.
      if (complete === false) throw new KrtError(`read ${kept.length} entries of ${auditTopic} so far, not yet to its end; the next poll reads on`);
      return kept;
    },
  };
}

/** The replays, discards, expired ranges and no-record ranges of `dlqTopic` among the records, with the fields the fold reads. */
async function entriesAbout(dlqTopic: string, records: TopicRead['records'], signal?: AbortSignal): Promise<AuditFields[]> {
  // Sliced: a year of audit log must not hold the event loop (heartbeats, HTTP).
  return runSliced(parsedEntriesAbout(dlqTopic, records), signal);
}

function* parsedEntriesAbout(dlqTopic: string, records: TopicRead['records']): SlicedWork<AuditFields[]> {
  const found: AuditFields[] = [];
  let n = 0;
  for (const record of records) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    const fields = foldedFields(record.value);
    if (fields?.dlqTopic === dlqTopic && ACTIONS.has(String(fields.action))) found.push({ fields });
  }
  return found;
}

function foldedFields(value: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const entry = parsed as Record<string, unknown>;
  return Object.fromEntries(FOLDED_AUDIT_FIELDS.filter((name) => name in entry).map((name) => [name, entry[name]]));
}

/** The entries that may name a record below the DLQ's end (namesRecordBelow). */
function* namingRecordsBelow(entries: readonly AuditFields[], dlqEnd: ReadonlyMap<number, bigint>): SlicedWork<AuditFields[]> {
  const below: AuditFields[] = [];
  let n = 0;
  for (const entry of entries) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    if (namesRecordBelow(entry.fields, dlqEnd)) below.push(entry);
  }
  return below;
}

/** Whether an entry may name a record below the DLQ's end (anything the fold skips anyway is kept as it is). */
function namesRecordBelow(fields: Readonly<Record<string, unknown>>, dlqEnd: ReadonlyMap<number, bigint>): boolean {
  if (typeof fields.partition !== 'number') return true;
  const end = dlqEnd.get(fields.partition);
  if (fields.action === 'expired' || fields.action === 'handled-below') return typeof fields.belowOffset !== 'string' || !/^\d+$/.test(fields.belowOffset) || (end !== undefined && BigInt(fields.belowOffset) <= end);
  // Offsets a commit passed as holding no record: all below the end, as the record next to them is.
  if (fields.action === 'no-records' && typeof fields.to === 'string' && /^\d+$/.test(fields.to) && !(end !== undefined && BigInt(fields.to) < end)) return false;
  if (fields.action === 'no-records' && fields.offset === '-1') return true;
  return typeof fields.offset !== 'string' || !/^\d+$/.test(fields.offset) || (end !== undefined && BigInt(fields.offset) < end);
}
