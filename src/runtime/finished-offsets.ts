import type { TopicPartitionOffset } from './port';
import type { ConsumedRecord } from './router';
import { judgeLog } from './group-commit';
import { isNewLog } from './new-log';
import { recordIdentity } from './record-identity';

const keyOf = (r: { topic: string; partition: number }) => `${r.topic}\u0000${r.partition}`;

/**
 * How far this member finished each partition it reads one record at a time, across
 * rebalances. After a rebalance a partition is read again from its committed offset, which
 * a broker outage or an expired session may have left behind: a record below what this
 * member finished already ran to the end here (handled, or its publish acknowledged), so it
 * is committed, not run again, whoever read the partition in between.
 */
export class FinishedOffsets {
  private readonly upTo = new Map<string, bigint>();
  /** The record each partition was first read at (since it was last judged): proof of the same log without a commit. */
  private readonly firstRead = new Map<string, string>();
  /** Partitions to judge against the group's commit at their next record (after a rebalance). */
  private readonly unjudged = new Set<string>();

  /** A rebalance: each partition's next record is judged against the group's commit first. */
  rebalanced(): void {
    for (const key of this.upTo.keys()) this.unjudged.add(key);
  }

  /** Whether the record is a partition's first after a rebalance, to judge with the group's commit before has(). */
  mustJudge(record: ConsumedRecord): boolean {
    return this.unjudged.has(keyOf(record));
  }

  /**
   * The partition's first record after a rebalance, with the group's committed offset
   * (undefined when unread) and this member's acknowledged commit. The group's commit below
   * the acknowledged one is a new log (a live group's commit moves back only when the topic
   * was created again), wherever the client starts it; without an acknowledged commit, what
   * was finished stands only if the partition starts with the very record this member first
   * read: otherwise its records run again rather than being taken for finished ones.
   */
  judge(record: ConsumedRecord, committed: bigint | undefined, acknowledged: bigint | undefined, committedIsOwn: boolean, onNewLog: () => void): void {
    const key = keyOf(record);
    this.unjudged.delete(key);
    const judged = judgeLog(committed, acknowledged, committedIsOwn, this.firstRead.get(key) === recordIdentity(record.message));
    if (judged === 'read-past-acknowledged') {
      const upTo = this.upTo.get(key);
      if (upTo !== undefined && acknowledged !== undefined && acknowledged < upTo) this.upTo.set(key, acknowledged);
    } else if (judged !== 'read-past') this.forget(key);
    if (judged === 'new-log') onNewLog();
  }

  /**
   * Whether the record was finished here. `acknowledged`: the partition's last commit the
   * broker acknowledged. A record from offset 0 below it comes from a log that started over
   * (the topic deleted and created again: its offsets begin at 0 again, and the group's
   * commits went with the old one), so what was finished in the old log is forgotten, and
   * `onNewLog` tells whoever keeps the acknowledged offset to forget it too.
   */
  has(record: ConsumedRecord, acknowledged?: bigint, onNewLog?: () => void): boolean {
    const key = keyOf(record);
    const offset = BigInt(record.message.offset);
    if (isNewLog(offset, acknowledged)) {
      this.forget(key);
      onNewLog?.();
      return false;
    }
    if (!this.firstRead.has(key)) this.firstRead.set(key, recordIdentity(record.message));
    const finished = this.upTo.get(key);
    return finished !== undefined && offset < finished;
  }

  /** Everything below `commit.offset` is finished. */
  add(commit: TopicPartitionOffset): void {
    const key = keyOf(commit);
    const offset = BigInt(commit.offset);
    if (offset > (this.upTo.get(key) ?? -1n)) this.upTo.set(key, offset);
  }

  /** The partition's log was created again (told by its topic id): nothing finished of the old one counts. */
  newLog(topic: string, partition: number): void {
    this.forget(keyOf({ topic, partition }));
  }

  private forget(key: string): void {
    this.upTo.delete(key);
    this.firstRead.delete(key);
  }
}
