import type { TopicPartitionOffset } from './port';
import type { ConsumedRecord } from './router';
import { isNewLog } from './new-log';

/**
 * How far this member finished each partition it reads one record at a time, across
 * rebalances. After a rebalance a partition is read again from its committed offset, which
 * a broker outage or an expired session may have left behind: a record below what this
 * member finished already ran to the end here (handled, or its publish acknowledged), so it
 * is committed, not run again, whoever read the partition in between.
 */
export class FinishedOffsets {
  private readonly upTo = new Map<string, bigint>();

  /**
   * Whether the record was finished here. `acknowledged`: the partition's last commit the
   * broker acknowledged. A record below it comes from a log that started over (the topic
   * deleted and created again: its offsets begin at 0 again, and the group's commits went
   * with the old one), so what was finished in the old log is forgotten, and `onNewLog` tells
   * whoever keeps the acknowledged offset to forget it too.
   */
  has(record: ConsumedRecord, acknowledged?: bigint, onNewLog?: () => void): boolean {
    const key = `${record.topic}\u0000${record.partition}`;
    const offset = BigInt(record.message.offset);
    if (isNewLog(offset, acknowledged)) {
      this.upTo.delete(key);
      onNewLog?.();
      return false;
    }
    const finished = this.upTo.get(key);
    return finished !== undefined && offset < finished;
  }

  /** Everything below `commit.offset` is finished. */
  add(commit: TopicPartitionOffset): void {
    const key = `${commit.topic}\u0000${commit.partition}`;
    const offset = BigInt(commit.offset);
    if (offset > (this.upTo.get(key) ?? -1n)) this.upTo.set(key, offset);
  }
}
