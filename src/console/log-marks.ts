import type { ReadScope } from '../dlq/session';

type Witness = NonNullable<ReadScope['witness']>;

/** One record read: its offset and its mark (recordMark). */
export interface LogMark {
  readonly offset: bigint;
  readonly mark: string;
}

/** The last record a read saw in each partition, handled or not, heard through its witness. */
export function lastMarks(): { readonly witness: Witness; readonly marks: Map<number, LogMark> } {
  const marks = new Map<number, LogMark>();
  return {
    marks,
    witness: (partition, offset, mark) => {
      const at = marks.get(partition);
      if (at === undefined || offset >= at.offset) marks.set(partition, { offset, mark });
    },
  };
}

/**
 * Whether a read found each of these records where it was and as it was. A topic deleted and
 * made again has other records at the same offsets (or none yet), with the same log starts
 * and no commit of the replay group: its ends and handled state alone cannot tell it apart.
 * A partition counted up to `ends` without a mark held no record below that end (markers
 * only, or nothing): a record found there is another log's.
 */
export function sameLogAs(expected: ReadonlyMap<number, LogMark>, ends: ReadonlyMap<number, bigint>): { readonly witness: Witness; sameLog(): boolean } {
  const found = new Set<number>();
  let other = false;
  return {
    witness: (partition, offset, mark) => {
      const at = expected.get(partition);
      if (at === undefined) {
        if (offset < (ends.get(partition) ?? 0n)) other = true;
        return;
      }
      if (at.offset !== offset) return;
      if (at.mark === mark) found.add(partition);
      else other = true;
    },
    sameLog: () => !other && [...expected.keys()].every((p) => found.has(p)),
  };
}

/** Where a carried count reads a partition from: its last counted record, or the start of one that had none (nothing to read there in the same log). */
export const carriedFrom =
  (marks: ReadonlyMap<number, LogMark>) =>
  (partition: number): bigint =>
    marks.get(partition)?.offset ?? 0n;

/** Both witnesses hear every record. */
export const bothWitnesses =
  (a: Witness, b: Witness): Witness =>
  (partition, offset, mark) => {
    a(partition, offset, mark);
    b(partition, offset, mark);
  };
