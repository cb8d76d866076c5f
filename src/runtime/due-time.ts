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
  private readonly heads = new Map<string, { readonly offset: string; readonly at: number }>();

  /** When the record at `offset` of `partition` was first read, now if it is new. */
  at(partition: string, offset: string, now: number): number {
    const head = this.heads.get(partition);
    if (head?.offset === offset) return head.at;
    this.heads.set(partition, { offset, at: now });
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
