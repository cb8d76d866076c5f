/**
 * What park-by-key keeps in the metadata of the group's commit of tier partition p, beside
 * its offset (the oldest tier record not done: one waiting its key's turn, or the next):
 * - the id of main partition p's state and p's main commit then (tier-commit-state-id.ts);
 * - how far the tier partition was handled (`handledBelow`), and the records between the
 *   commit and there still waiting their turn (`waiting`). A tier partition read again from
 *   its commit (after a rebalance, a restart) then skips the records in between that were
 *   done, instead of running them again: a record that waits its turn holds the commit back
 *   for as long as its key is busy (up to the key's whole ladder), and before this every
 *   record behind it ran again after each rebalance (found by attack 9: 600 replays, twice).
 *
 * `krt-park-tier/1 [!<id> +<main commit>] [><handled>[:<w>,<w>...] ^<timestamp>[*]] .` with the
 * handled position and the waiting records as distances past the commit's offset, the
 * timestamp of the record at the commit's offset (the oldest waiting one), all in base 36,
 * and an end token, so a state cut short or extended reads as nothing, never as another. The
 * timestamp tells this log's record at that offset from another log's (the tier deleted and
 * created again): only under the same record is anything skipped. `*`: the record at the
 * commit's offset is done too. While a kept position's records are skipped, none waits at the
 * next offset and its timestamp is not known before it is read, so the commit stays on the
 * last record done, the one read (found by attack 12: the position was given up at the first
 * skip, and a second rebalance ran every record not yet skipped again). Earlier releases wrote
 * `krt-park-id/1 !<id> +<main commit> .`, still read for the id.
 */
export const TIER_COMMIT_FORMAT = 'krt-park-tier/1';

export interface TierCommitFields {
  /** Main partition p's state id, and p's main commit when it was written (both or neither). */
  readonly id?: string;
  readonly mainCommitted?: bigint;
  /** Every record of the tier partition below it is done, but the waiting ones. */
  readonly handledBelow?: bigint;
  /** Records between the commit's offset (exclusive) and `handledBelow` still waiting their turn. */
  readonly waiting: readonly bigint[];
  /** The timestamp (ms) of the record at the commit's offset: without it, no position is kept. */
  readonly firstTimestamp?: bigint;
  /** The record at the commit's offset is done (a commit anchored on the last record done). */
  readonly firstDone?: boolean;
}

const NUMBER = '[0-9a-z]{1,13}';
const CURRENT = new RegExp(`^krt-park-tier/1(?: !([A-Za-z0-9_-]{8}) \\+(${NUMBER}))?(?: >(${NUMBER})(?::(${NUMBER}(?:,${NUMBER})*))? \\^(${NUMBER})(\\*)?)? \\.\\0*$`);
const LEGACY = new RegExp(`^krt-park-id/1 !([A-Za-z0-9_-]{8}) \\+(${NUMBER}) \\.\\0*$`);

/** The metadata of a tier commit at `offset` (none when it has nothing to keep); a NUL ends it, as every client reads it. */
export function encodeTierCommit(offset: bigint, fields: TierCommitFields): string | undefined {
  const parts: string[] = [];
  if (fields.id !== undefined && fields.mainCommitted !== undefined) parts.push(`!${fields.id}`, `+${fields.mainCommitted.toString(36)}`);
  // A position that skips no record is not kept: past the commit's own record, or past the commit marked done.
  const handled = fields.handledBelow !== undefined && fields.handledBelow > offset + (fields.firstDone === true ? 0n : 1n) ? fields.handledBelow : undefined;
  if (handled !== undefined && fields.firstTimestamp !== undefined && fields.firstTimestamp >= 0n) {
    const waiting = [...new Set(fields.waiting.filter((w) => w > offset && w < handled))].sort((a, b) => (a < b ? -1 : 1));
    parts.push(`>${(handled - offset).toString(36)}${waiting.length > 0 ? `:${waiting.map((w) => (w - offset).toString(36)).join(',')}` : ''}`, `^${fields.firstTimestamp.toString(36)}${fields.firstDone === true ? '*' : ''}`);
  }
  return parts.length === 0 ? undefined : `${[TIER_COMMIT_FORMAT, ...parts, '.'].join(' ')}\0`;
}

/** The fields of a tier commit at `offset`; nothing for metadata that is none of ours (a reset, another writer, a cut). */
export function decodeTierCommit(offset: bigint, metadata: string | null | undefined): TierCommitFields {
  const text = metadata ?? '';
  const legacy = LEGACY.exec(text);
  if (legacy) return { id: legacy[1]!, mainCommitted: base36(legacy[2]!), waiting: [] };
  const current = CURRENT.exec(text);
  if (!current) return { waiting: [] };
  const [, id, main, handled, waiting, timestamp, done] = current;
  return {
    ...(id === undefined ? {} : { id, mainCommitted: base36(main!) }),
    ...(handled === undefined ? {} : { handledBelow: offset + base36(handled), firstTimestamp: base36(timestamp!), ...(done === undefined ? {} : { firstDone: true }) }),
    waiting: waiting === undefined ? [] : waiting.split(',').map((w) => offset + base36(w)),
  };
}

/**
 * The fields of a tier commit at `offset` cut to `budgetBytes` of metadata: the waiting records
 * kept oldest first while they fit, and the handled position brought down to the first one
 * left out (it and every record after it are read and judged again: duplicates, never a skip
 * of a record not done); without room even for that, no position at all.
 */
export function fitTierCommit(offset: bigint, fields: TierCommitFields, budgetBytes: number): string | undefined {
  const fits = (f: TierCommitFields) => Buffer.byteLength(encodeTierCommit(offset, f) ?? '') <= budgetBytes;
  if (fits(fields)) return encodeTierCommit(offset, fields);
  const waiting = [...fields.waiting].filter((w) => w > offset && fields.handledBelow !== undefined && w < fields.handledBelow).sort((a, b) => (a < b ? -1 : 1));
  for (let kept = waiting.length - 1; kept >= 0; kept--) {
    const cut: TierCommitFields = { ...fields, handledBelow: waiting[kept]!, waiting: waiting.slice(0, kept) };
    if (fits(cut)) return encodeTierCommit(offset, cut);
  }
  const { handledBelow: _dropped, firstTimestamp: _stamp, firstDone: _done, ...withoutPosition } = fields;
  return encodeTierCommit(offset, { ...withoutPosition, waiting: [] });
}

function base36(digits: string): bigint {
  let n = 0n;
  for (const digit of digits) n = n * 36n + BigInt(parseInt(digit, 36));
  return n;
}
