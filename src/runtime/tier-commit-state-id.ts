/**
 * Park-by-key keeps the id of main partition p's state beside the state too: in the metadata
 * of the group's commits of tier partitions p, with the main commit of p when it was written.
 * An operator's offset reset of the main topic to its current offsets (or metadata read back
 * damaged) loses the state and its id; the tiers' commits keep the id, so the state that
 * replaces the lost one takes it back, and the tier records of its own log stay its own to
 * judge (a stale copy is still skipped, a retry in flight still holds its key). A main topic
 * deleted and created again leaves the tiers' commits too: a state begun from nothing writes
 * its new id there before it takes a record, and a lost commit below the main commit the
 * tiers name (a log moved back: recreated, or reset to earlier offsets) takes none back.
 */
export const TIER_STATE_ID_FORMAT = 'krt-park-id/1';

const TIER_STATE_ID = /^krt-park-id\/1 !([A-Za-z0-9_-]{8}) \+([0-9a-z]{1,13}) \.\0*$/;

/** What a tier commit of partition p keeps: p's state id and p's main commit then. */
export interface KeptStateId {
  readonly id: string;
  readonly committed: bigint;
}

/** The metadata of a tier commit of partition p under a state with `id` whose main commit is `committed` (none without an id). */
export function tierCommitMetadata(id: string | undefined, committed: bigint): string | undefined {
  return id === undefined ? undefined : `${TIER_STATE_ID_FORMAT} !${id} +${committed.toString(36)} .\0`;
}

/**
 * The state id the tier commits of p agree on, with the latest main commit they name (main
 * commits of one log only move forward). None when one names none (written before ids, or by a
 * state whose id did not fit) or two differ: which is the latest cannot be told.
 */
export function agreedStateId(metadata: readonly (string | null | undefined)[]): KeptStateId | undefined {
  const kept = metadata.map((m) => TIER_STATE_ID.exec(m ?? ''));
  const first = kept[0]?.[1];
  if (first === undefined || !kept.every((k) => k?.[1] === first)) return undefined;
  const committed = kept.map((k) => base36(k![2]!)).reduce((a, b) => (a > b ? a : b));
  return { id: first, committed };
}

function base36(digits: string): bigint {
  let n = 0n;
  for (const digit of digits) n = n * 36n + BigInt(parseInt(digit, 36));
  return n;
}
