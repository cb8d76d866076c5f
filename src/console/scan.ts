import { recordGroups } from '../dlq/inspect';
import type { InspectGroup } from '../dlq/inspect';
import type { DlqRecord } from '../dlq/session';
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

const after = (r: DlqRecord, cursor: Cursor) => r.partition > cursor.partition || (r.partition === cursor.partition && r.offset > cursor.offset);

/** Sorted by partition, then offset: the order of `krt dlq inspect` and of the pages. */
export const byPosition = (a: DlqRecord, b: DlqRecord) => a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0);

/**
 * Keeps, of each partition, the first `count` records `wanted` accepts. A partition is read in
 * offset order, so the first `count` of all partitions in (partition, offset) order are among
 * them: memory is bounded by `count` times the partitions, whatever the DLQ holds.
 */
export function firstOfEachPartition(count: number, wanted: (r: DlqRecord) => boolean): Keep {
  const kept = new Map<number, number>();
  return (r) => {
    if (!wanted(r)) return false;
    const n = kept.get(r.partition) ?? 0;
    if (n >= count) return false;
    kept.set(r.partition, n + 1);
    return true;
  };
}

/** The overview's numbers of one DLQ, counted as it is read. */
export function backlogScan() {
  let unhandled = 0;
  let oldest: number | undefined;
  const keep: Keep = (r) => {
    unhandled++;
    if (oldest === undefined || r.timestamp < oldest) oldest = r.timestamp;
    return false;
  };
  return { keep, result: () => ({ unhandled, oldest }) };
}

export interface PageView {
  readonly unhandled: number;
  readonly matching: number;
  /** Matching records before the page. */
  readonly before: number;
  readonly groups: readonly InspectGroup[];
  readonly shown: readonly DlqRecord[];
  /** The cursor of the next page, when there is one. */
  readonly next?: string;
}

/** One page of a filtered DLQ, its counts and groups, from a read that keeps only the page. */
export function pageScan(filter: RecordFilter, cursor: Cursor | undefined, size: number) {
  let unhandled = 0;
  let matching = 0;
  let before = 0;
  const groups = recordGroups({ ids: false });
  const inPage = firstOfEachPartition(size, (r) => cursor === undefined || after(r, cursor));
  const keep: Keep = (r) => {
    unhandled++;
    if (!matches(filter, r)) return false;
    matching++;
    groups.add(r);
    if (cursor !== undefined && !after(r, cursor)) {
      before++;
      return false;
    }
    return inPage(r);
  };
  const view = (kept: readonly DlqRecord[]): PageView => {
    const shown = [...kept].sort(byPosition).slice(0, size);
    const last = shown[shown.length - 1];
    const more = matching - before - shown.length > 0;
    return { unhandled, matching, before, groups: groups.groups(), shown, ...(more && last ? { next: last.id } : {}) };
  };
  return { keep, view };
}
