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
