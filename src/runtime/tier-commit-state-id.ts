import { decodeTierCommit } from './tier-commit-metadata';

/**
 * Park-by-key keeps the id of main partition p's state beside the state too: in the metadata
 * of the group's commits of tier partitions p, with the main commit of p when it was written
 * (tier-commit-metadata.ts). An operator's offset reset of the main topic to its current
 * offsets (or metadata read back damaged) loses the state and its id; the tiers' commits keep
 * the id, so the state that replaces the lost one takes it back, and the tier records of its
 * own log stay its own to judge (a stale copy is still skipped, a retry in flight still holds
 * its key). A main topic deleted and created again leaves the tiers' commits too: a state
 * begun from nothing writes its new id there before it takes a record, and a lost commit
 * below the main commit the tiers name (a log moved back: recreated, or reset to earlier
 * offsets) takes none back.
 */
export interface KeptStateId {
  readonly id: string;
  readonly committed: bigint;
}

/**
 * The state id the tier commits of p agree on, with the latest main commit they name (main
 * commits of one log only move forward). None when one names none (written before ids, or by a
 * state whose id did not fit) or two differ: which is the latest cannot be told.
 */
export function agreedStateId(metadata: readonly (string | null | undefined)[]): KeptStateId | undefined {
  // The id and the main commit are no distances: any offset reads them.
  const kept = metadata.map((m) => decodeTierCommit(0n, m));
  const first = kept[0]?.id;
  if (first === undefined || !kept.every((k) => k.id === first)) return undefined;
  const committed = kept.map((k) => k.mainCommitted!).reduce((a, b) => (a > b ? a : b));
  return { id: first, committed };
}
