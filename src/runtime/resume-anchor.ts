import type { PortMessage } from './port';
import { isSameRecord } from './record-identity';

/**
 * What the first record read after a partition was sought back to its anchor (the last record
 * it took) says of the log:
 * - `anchor`: the anchor itself, the same log: read on past it;
 * - `new-log`: another record at its offset, or the log's start (0) below it: the topic was
 *   deleted and created again while the partition waited (its offsets start over), and the
 *   new log is read from its start;
 * - `seek-again`: a record below the anchor, not at the start: the client did not read from
 *   the seek (a position reset by a rejoin, say); nothing is proven, so the anchor is read again;
 * - `moved-on`: a record past the anchor: compaction or retention removed the anchor, the same
 *   log read on (a new log is read from 0, below it).
 */
export type AnchorJudgement = 'anchor' | 'new-log' | 'seek-again' | 'moved-on';

export function judgeReadAtAnchor(anchor: PortMessage, first: PortMessage): AnchorJudgement {
  const at = BigInt(anchor.offset);
  const read = BigInt(first.offset);
  if (read === at) return isSameRecord(anchor, first) ? 'anchor' : 'new-log';
  if (read > at) return 'moved-on';
  return read === 0n ? 'new-log' : 'seek-again';
}

/**
 * What a batch read below the partition's next offset with no rebalance (the client read
 * again from earlier by itself: a fetch out of range read from the earliest, a position it
 * kept) says of the log, by the partition's anchor (its last record taken, at or past the
 * batch's first offset):
 * - `same-log`: the anchor is read again, the same record; or the batch goes past its offset
 *   without it (compaction, as `moved-on`): the records up to it were finished, read past them;
 * - `new-log`: another record at the anchor's offset, or a log that ends before it (its high
 *   watermark): the topic was deleted and created again, and its new log hid its offset 0
 *   (an aborted record, a transaction marker), so no record at 0 told (found by attack 17);
 * - `read-anchor`: the batch ends before the anchor and nothing else tells: read the anchor.
 */
export type RewindJudgement = 'same-log' | 'new-log' | 'read-anchor';

export function judgeRewind(anchor: PortMessage, messages: readonly PortMessage[], highWatermark: string | undefined): RewindJudgement {
  const at = BigInt(anchor.offset);
  const again = messages.find((m) => BigInt(m.offset) === at);
  if (again !== undefined) return isSameRecord(anchor, again) ? 'same-log' : 'new-log';
  if (highWatermark !== undefined && BigInt(highWatermark) <= at) return 'new-log';
  const last = messages[messages.length - 1];
  return last !== undefined && BigInt(last.offset) > at ? 'same-log' : 'read-anchor';
}
