/**
 * Park-by-key keeps the id of main partition p's state beside the state too: in the metadata
 * of the group's commits of tier partitions p. An operator's offset reset of the main topic
 * (or metadata read back damaged) loses the state and its id; the tiers' commits keep the id,
 * so the state that replaces the lost one takes it back, and the tier records of its own log
 * stay its own to judge (a stale copy is still skipped, a retry in flight still holds its key).
 * A main topic deleted and created again leaves the tiers' commits too, so a state begun from
 * nothing writes its new id there before it takes a record.
 */
export const TIER_STATE_ID_FORMAT = 'krt-park-id/1';

const TIER_STATE_ID = /^krt-park-id\/1 !([A-Za-z0-9_-]{8}) \.\0*$/;

/** The metadata of a tier commit of partition p under a state with `id` (none without one). */
export function tierCommitMetadata(id: string | undefined): string | undefined {
  return id === undefined ? undefined : `${TIER_STATE_ID_FORMAT} !${id} .\0`;
}

/**
 * The state id the tier commits of p agree on: each one read (`metadata` of the commits that
 * exist) names the same id. None when one names none (written before ids, or by a state whose
 * id did not fit) or two differ: which is the latest cannot be told, so none is taken back.
 */
export function agreedStateId(metadata: readonly (string | null | undefined)[]): string | undefined {
  const ids = metadata.map((m) => TIER_STATE_ID.exec(m ?? '')?.[1]);
  const [first] = ids;
  return first !== undefined && ids.every((id) => id === first) ? first : undefined;
}
