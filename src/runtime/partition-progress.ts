/** A failed record's publish to its tier or the DLQ, from its start to its acknowledgement. */
export interface PendingPublish {
  readonly offset: number;
  /** Set when the record is taken again (a rebalance, a seek): its publish loop gives up at its next try. */
  abandoned: boolean;
}

/**
 * How far one partition may be committed while its failed records are still being
 * published. Records are taken in offset order; a success is finished at once, a failure
 * only when its publish is acknowledged. The committable offset is the lowest offset
 * whose publish is unacknowledged, else the one after the last record taken: a commit
 * never passes a record that is not yet in its tier or the DLQ.
 *
 * One progress lives as long as the consumer: a rebalance or a seek resumes it rather
 * than replacing it, because a client may resume a partition past records whose publish
 * is still in flight (the Confluent client seeks to the last resolved offset), and those
 * must go on holding the commit.
 *
 * Offsets are plain numbers: exact up to 2^53, which a partition written at a million
 * records a second reaches in 285 years.
 */
export class PartitionProgress {
  /** Publishes not yet acknowledged, by ascending offset (records are taken in order). */
  private unacked: PendingPublish[] = [];
  /** One past the last offset taken; -1 before the first. */
  private next = -1;
  /** Where the partition stood when taking began (or resumed): committing it tells Kafka nothing. */
  private start = -1;
  /** Resolvers of waitForAcknowledgement(), called when an acknowledgement frees a place. */
  private waiters: (() => void)[] = [];
  /** Set by a rebalance until the partition's next batch: it may belong to another member, so nothing is committed. */
  dropped = false;

  constructor(readonly topic: string, readonly partition: number) {}

  /** A record the handler finished with (success): nothing left to wait for. */
  finish(offset: number): void {
    this.take(offset);
  }

  /** A failed record whose publish started; it holds the commit until acknowledged. */
  publishing(offset: number): PendingPublish {
    this.take(offset);
    const pending: PendingPublish = { offset, abandoned: false };
    this.unacked.push(pending);
    return pending;
  }

  private take(offset: number): void {
    if (this.start < 0) this.start = offset;
    this.next = offset + 1;
  }

  /** The publish was acknowledged (of an abandoned one: nothing changes). */
  acknowledged(pending: PendingPublish): void {
    const at = this.unacked.indexOf(pending);
    if (at >= 0) this.unacked.splice(at, 1);
    this.release();
  }

  /** Whether the partition's next batch, starting at `offset`, must resume this progress first. */
  mustResume(offset: number): boolean {
    return this.dropped || offset < this.next;
  }

  /**
   * The partition's next batch starts at `offset`, after a rebalance or a re-fetch. The
   * records from `offset` on run again, so their publishes are abandoned; publishes of
   * earlier records go on and hold the commit until acknowledged.
   */
  resume(offset: number): void {
    for (const pending of this.unacked) if (pending.offset >= offset) pending.abandoned = true;
    this.unacked = this.unacked.filter((pending) => !pending.abandoned);
    this.start = offset;
    this.next = offset;
    this.dropped = false;
    this.release();
  }

  /** The offset to commit, or -1 while nothing is finished (committing where the partition stood tells Kafka nothing). */
  committable(): number {
    const offset = this.unacked.length > 0 ? this.unacked[0]!.offset : this.next;
    return offset > this.start ? offset : -1;
  }

  get inFlight(): number {
    return this.unacked.length;
  }

  /** Resolves at the next acknowledgement (or at once when none is pending). */
  waitForAcknowledgement(): Promise<void> {
    if (this.unacked.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes whoever waits for an acknowledgement (stop, a rebalance, a failed publish): they look again. */
  release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
