import { createHash } from 'node:crypto';
import type { PortMessage } from './port';

/**
 * Which record a partition held at an offset: its offset, timestamp, key and a digest of its
 * value. Read again at the same offset, the same identity says the log is the one this member
 * read (not a topic created again since, whose offsets start over); kept once per partition
 * resume, not per record.
 */
export function recordIdentity(message: PortMessage): string {
  const value = message.value === null ? 'null' : createHash('sha1').update(message.value).digest('base64');
  return `${message.offset}\u0000${message.timestamp}\u0000${message.key?.toString('base64') ?? 'null'}\u0000${value}`;
}

/**
 * Whether two records read from one partition are the same record: at the same offset, and
 * alike in the rest (a topic deleted and created again with no rebalance starts its offsets
 * over, so an offset remembered from the old log names another record of the new one: found
 * by attack 15). Compared only when the offsets agree, so the digest is made only then.
 */
export function isSameRecord(a: PortMessage, b: PortMessage): boolean {
  return a.offset === b.offset && (a === b || recordIdentity(a) === recordIdentity(b));
}

/** Whether `b`, read at the offset of `a`, is another record: the log `a` was read from was made again. */
export function isAnotherRecordAt(a: PortMessage, b: PortMessage): boolean {
  return a.offset === b.offset && !isSameRecord(a, b);
}
