import { recordGroups } from '../dlq/inspect';
import type { InspectGroup } from '../dlq/inspect';
import type { DlqRecord, ReadScope } from '../dlq/session';
import type { Keep } from './backend';
import { matches } from './filter';
import type { RecordFilter } from './filter';

/** A place in the DLQ, in the order pages list records: partition, then offset. */
export interface Cursor {
  readonly partition: number;
  readonly offset: bigint;
}

export function cursorOf(text: string | undefined): Cursor | undefined {
  const match = /^(\d{1,9}):(\d{1,19})$/.exec(text ?? '');
  return match ? { partition: Number(match[1]), offset: BigInt(match[2]!) } : undefined;
}

/** Sorted by partition, then offset: the order of `krt dlq inspect` and of the pages. */
export const byPosition = (a: DlqRecord, b: DlqRecord) => a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0);

/**
 * Keeps, of each partition, the first `count` records `wanted` accepts. A partition is read in
 * offset order, so the first `count` of all partitions in (partition, offset) order are among
 * them: memory is bounded by `count` times the partitions, whatever the DLQ holds.
 */
export function firstOfEachPartition(count: number, wanted: (r: DlqRecord) => boolean): Keep & { readonly kept: ReadonlyMap<number, number> } {
  const kept = new Map<number, number>();
  const keep = (r: DlqRecord) => {
    if (!wanted(r)) return false;
    const n = kept.get(r.partition) ?? 0;
    if (n >= count) return false;
    kept.set(r.partition, n + 1);
    return true;
  };
  return Object.assign(keep, { kept });
}

/** The overview's numbers of one DLQ: the first unhandled record of each partition, read and no further. */
export function headScan(): { readonly keep: Keep; readonly scope: ReadScope; readonly oldest: (records: readonly DlqRecord[]) => number | undefined } {
  const keep = firstOfEachPartition(1, () => true);
  return {
    keep,
    scope: { enough: (partition) => keep.kept.has(partition) },
    oldest: (records) => (records.length === 0 ? undefined : Math.min(...records.map((r) => r.timestamp))),
  };
}

/** The bytes of a key, value or header a list holds of each record: more than it shows, far less than a 10 MB value. */
export const PREVIEW_BYTES = 1024;

export interface PageView {
  readonly shown: readonly DlqRecord[];
  /** The cursor of the next page, when there is one. */
  readonly next?: string;
}

/**
 * One page of a filtered DLQ: the first `size` matching records after the cursor, read from
 * the cursor and no further than the page. Of each partition it keeps one record more than
 * the page: that one says a next page exists.
 */
export function pageScan(filter: RecordFilter, cursor: Cursor | undefined, size: number): { readonly keep: Keep; readonly scope: ReadScope; readonly view: (kept: readonly DlqRecord[]) => PageView } {
  const keep = firstOfEachPartition(size + 1, (r) => matches(filter, r));
  const scope: ReadScope = {
    previewBytes: PREVIEW_BYTES,
    from: (partition) => (cursor === undefined || partition > cursor.partition ? 0n : partition === cursor.partition ? cursor.offset + 1n : undefined),
    // Once a partition holds more than a page, no later partition can reach the page: their reading stops, or never starts.
    enough: (partition) => [...keep.kept].some(([p, n]) => n > size && p <= partition),
  };
  const view = (kept: readonly DlqRecord[]): PageView => {
    const sorted = [...kept].sort(byPosition);
    const shown = sorted.slice(0, size);
    const last = shown[shown.length - 1];
    return { shown, ...(sorted.length > size && last ? { next: last.id } : {}) };
  };
  return { keep, scope, view };
}

/** A consumer page's numbers: computed apart from the page, read to the ends at the time. */
export interface Summary {
  readonly unhandled: number;
  readonly matching: number;
  /** The oldest unhandled record's timestamp, filter or not. */
  readonly oldest?: number;
  readonly groups: readonly InspectGroup[];
}

interface Counts {
  unhandled: number;
  matching: number;
  oldest: number | undefined;
}

/**
 * The counts, groups and oldest unhandled record of a filtered DLQ, tallied one record at a
 * time: its memory is the groups (error names times original topics), never the records. A
 * tally carries on from a copy, so a DLQ that grew is counted from where the copy stopped.
 */
export function summaryTally(filter: RecordFilter, from?: { counts: Counts; groups: ReturnType<typeof recordGroups> }) {
  const counts: Counts = from ? { ...from.counts } : { unhandled: 0, matching: 0, oldest: undefined };
  const groups = from ? from.groups.copy() : recordGroups({ ids: false });
  const keep: Keep = (r) => {
    counts.unhandled++;
    if (counts.oldest === undefined || r.timestamp < counts.oldest) counts.oldest = r.timestamp;
    if (matches(filter, r)) {
      counts.matching++;
      groups.add(r);
    }
    return false;
  };
  return {
    keep,
    /** A tally that goes on from this one's numbers and leaves them as they are. */
    carryOn: () => summaryTally(filter, { counts, groups }),
    summary: (): Summary => ({ unhandled: counts.unhandled, matching: counts.matching, ...(counts.oldest !== undefined ? { oldest: counts.oldest } : {}), groups: groups.groups() }),
  };
}
export type SummaryTally = ReturnType<typeof summaryTally>;
