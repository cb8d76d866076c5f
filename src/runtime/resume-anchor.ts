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
