/**
 * How far one partition may be committed while its failed records are still being
 * published. Records are taken in offset order; a success is finished at once, a failure
 * only when its publish is acknowledged. The committable offset is the lowest offset
 * whose publish is unacknowledged, else the one after the last record taken: a commit
 * never passes a record that is not yet in its tier or the DLQ.
 *
 * Offsets are plain numbers: exact up to 2^53, which a partition written at a million
 * records a second reaches in 285 years.
 */
export class PartitionProgress {
  /** Offsets whose publish is unacknowledged, ascending (records are taken in order). */
  private readonly unacked: number[] = [];
  /** One past the last offset taken; -1 before the first. */
  private next = -1;
  /** The first offset taken: where the partition stood, so nothing to commit. */
  private start = -1;
  /** Resolvers of wait(), called when an acknowledgement frees a place. */
  private waiters: (() => void)[] = [];
  /** Set by a rebalance: this partition may belong to another member now. */
  dropped = false;

  constructor(readonly topic: string, readonly partition: number) {}

  /** A record the handler finished with (success): nothing left to wait for. */
  finish(offset: number): void {
    this.take(offset);
  }

  /** A failed record whose publish started; it holds the commit until acknowledged. */
  publishing(offset: number): void {
    this.take(offset);
    this.unacked.push(offset);
  }

  private take(offset: number): void {
    if (this.start < 0) this.start = offset;
    this.next = offset + 1;
  }

  /** The publish of `offset` was acknowledged. */
  acknowledged(offset: number): void {
    const at = this.unacked.indexOf(offset);
    if (at >= 0) this.unacked.splice(at, 1);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** The offset to commit, or -1 while nothing is finished (committing where the partition stood tells Kafka nothing). */
  committable(): number {
    const offset = this.unacked.length > 0 ? this.unacked[0]! : this.next;
    return offset > this.start ? offset : -1;
  }

  /** Whether `offset` was already taken (a batch fetched again after a seek or a lost rebalance notice). */
  taken(offset: number): boolean {
    return offset < this.next;
  }

  get inFlight(): number {
    return this.unacked.length;
  }

  /** Resolves at the next acknowledgement (or at once when none is pending). */
  waitForAcknowledgement(): Promise<void> {
    if (this.unacked.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stop, rebalance: nobody waits for acknowledgements any more. */
  release(): void {
    this.acknowledged(Number.NaN);
  }
}
