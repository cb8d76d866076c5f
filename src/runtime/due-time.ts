import type { PortMessage } from './port';
import { isSameRecord } from './record-identity';

/**
 * When a tier record is due: the earliest of what its `x-due-at` says, its timestamp plus
 * the tier's delay, and the time this member first read it plus the delay. Each of these
 * is no earlier than the true due time of a record this library published (so never
 * early, R13), and the last one bounds the wait: no header or timestamp, however absurd,
 * holds a tier partition longer than the tier's delay after the record was first read.
 */
export function dueTimeOf(record: { readonly header?: number; readonly writtenAt?: number; readonly firstSeenAt: number; readonly delayMs: number }): number {
  const candidates = [record.firstSeenAt + record.delayMs];
  if (record.header !== undefined) candidates.push(record.header);
  if (record.writtenAt !== undefined) candidates.push(record.writtenAt + record.delayMs);
  return Math.min(...candidates);
}

/** The head record of each waiting tier partition and when this member first read it. */
export class FirstSeen {
  private readonly heads = new Map<string, { readonly record: PortMessage; readonly at: number }>();

  /**
   * When `record` of `partition` was first read, now if it is new. The same record, not only
   * the same offset: a tier created again starts its offsets over, and its record at the old
   * head's offset inherited the old record's first read, and ran early (found by attack 15).
   */
  at(partition: string, record: PortMessage, now: number): number {
    const head = this.heads.get(partition);
    if (head !== undefined && isSameRecord(head.record, record)) return head.at;
    this.heads.set(partition, { record, at: now });
    return now;
  }

  done(partition: string): void {
    this.heads.delete(partition);
  }

  /** After a rebalance the partitions may belong to others. */
  clear(): void {
    this.heads.clear();
  }
}
