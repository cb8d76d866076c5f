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
 */
export function sameLogAs(expected: ReadonlyMap<number, LogMark>): { readonly witness: Witness; sameLog(): boolean } {
  const found = new Set<number>();
  let other = false;
  return {
    witness: (partition, offset, mark) => {
      const at = expected.get(partition);
      if (at === undefined || at.offset !== offset) return;
      if (at.mark === mark) found.add(partition);
      else other = true;
    },
    sameLog: () => !other && [...expected.keys()].every((p) => found.has(p)),
  };
}

/** Both witnesses hear every record. */
export const bothWitnesses =
  (a: Witness, b: Witness): Witness =>
  (partition, offset, mark) => {
    a(partition, offset, mark);
    b(partition, offset, mark);
  };
