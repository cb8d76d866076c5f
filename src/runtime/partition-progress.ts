/** A failed record's publish to its tier or the DLQ, from its start to its acknowledgement. */
export interface PendingPublish {
  /** Kafka offsets are 64-bit: a bigint, never a JavaScript number. */
  readonly offset: bigint;
  /** Set when the record is taken again (a seek) or its partition revoked: its publish loop gives up at its next try. */
  abandoned: boolean;
  /** Its copy was refused as too large by the DLQ too: the partition takes no later record while it waits. */
  held: boolean;
}

/** The lower of two offsets, -1 standing for none. */
const lowest = (a: bigint, b: bigint) => (a >= 0n && a < b ? a : b);

/** What the group's commit says at a partition's first batch after a rebalance. */
export interface GroupCommitView {
  /** The group's committed offset (-1 for none); undefined when it could not be read. */
  readonly committed: bigint | undefined;
  /**
   * Whether records this member finished may be read past: only when its own acknowledged
   * commit shows the partition's log is the one it finished them in. Without one (no commit
   * of this member acknowledged yet, or the group's commit unread) they run again: a topic
   * created again in between would otherwise have its first records taken for finished ones.
   */
  readonly readPast: boolean;
  /** Read past only what lies below this offset (this member's acknowledged commit, the group's unread). */
  readonly readPastBelow?: bigint;
}

/**
 * How far one partition may be committed while its failed records are still being
 * published. Records are taken in offset order; a success is finished at once, a failure
 * only when its publish is acknowledged. The committable offset is the lowest offset
 * whose publish is unacknowledged, else the one after the last record taken: a commit
 * never passes a record that is not yet in its tier or the DLQ.
 *
 * One progress lives as long as the consumer. A rebalance revokes it: the publish loops of
 * its records end (the partition's owner reads those records again), and should the
 * partition come back to this member past one of them (the Confluent client resumes at
 * the last resolved offset), `resume()` says where to read again from. A seek resumes it:
 * publishes of records before the new position go on and hold the commit.
 */
export class PartitionProgress {
  /** Publishes not yet acknowledged, by ascending offset (records are taken in order); after a revocation, given up. */
  private unacked: PendingPublish[] = [];
  /** One past the last offset taken; -1 before the first. */
  private next = -1n;
  /** Where the partition stood when taking began (or resumed): committing it tells Kafka nothing. */
  private start = -1n;
  /**
   * Where the group's commit stood when taking began, or resumed after a rebalance: records
   * from here on are not committed until an acknowledged commit passes them. A re-fetch of
   * records taken already (the Confluent client seeks back after a long batch) leaves it.
   */
  private uncommittedFrom = -1n;
  /** Resolvers of waitForAcknowledgement(), called when an acknowledgement frees a place. */
  private waiters: (() => void)[] = [];
  /** Set by a rebalance until the partition's next batch: it may belong to another member, so nothing is committed. */
  dropped = false;
  /** The offset of the partition's last commit the broker acknowledged (set by the committer); -1 before one. */
  acknowledgedCommit = -1n;

  constructor(readonly topic: string, readonly partition: number) {}

  /** A record the handler finished with (success): nothing left to wait for. */
  finish(offset: bigint): void {
    this.take(offset);
  }

  /** A failed record whose publish started; it holds the commit until acknowledged. */
  publishing(offset: bigint): PendingPublish {
    this.take(offset);
    const pending: PendingPublish = { offset, abandoned: false, held: false };
    this.unacked.push(pending);
    return pending;
  }

  private take(offset: bigint): void {
    if (this.start < 0n) this.start = offset;
    if (this.uncommittedFrom < 0n) this.uncommittedFrom = offset;
    this.next = offset + 1n;
  }

  /** The publish was acknowledged: the record is in its tier (of one a seek abandoned: nothing changes). */
  acknowledged(pending: PendingPublish): void {
    const at = this.unacked.indexOf(pending);
    if (at >= 0) this.unacked.splice(at, 1);
    this.release();
  }

  /**
   * A rebalance: the partition may now be another member's, which reads its records again
   * from the committed offset. Every publish in flight gives up at its next try.
   */
  revoke(): void {
    this.dropped = true;
    for (const pending of this.unacked) pending.abandoned = true;
    this.release();
  }

  /** Whether the partition's next batch, starting at `offset`, must resume this progress first. */
  mustResume(offset: bigint): boolean {
    return this.dropped || offset < this.next;
  }

  /**
   * The partition's next batch starts at `offset`, after a rebalance or a re-fetch. If a
   * publish given up at a revocation lies before it, nothing resumes: the answer is the
   * offset to read again from (that record's). Records this member finished before (every
   * one below its oldest unacknowledged publish) never run again, whoever read them since:
   * the answer is then the offset to read on from, and the commit moves past them. The
   * records from there on run again, so their publishes are abandoned; publishes of
   * earlier records go on and hold the commit until acknowledged. After a rebalance,
   * `group` says what the group's commit shows: given-up publishes below it were finished
   * by whoever committed it, and without proof of the same log nothing is read past.
   */
  resume(offset: bigint, group: GroupCommitView = { committed: undefined, readPast: true }): bigint | undefined {
    const { committed } = group;
    // Given up below the group's commit: whoever committed past them finished them.
    if (committed !== undefined) this.unacked = this.unacked.filter((pending) => !(pending.abandoned && pending.offset < committed));
    const givenUp = this.unacked.find((pending) => pending.abandoned && pending.offset < offset);
    if (givenUp !== undefined) return givenUp.offset;
    const done = this.unacked.length > 0 ? this.unacked[0]!.offset : this.next;
    const finished = !group.readPast ? offset : group.readPastBelow !== undefined && group.readPastBelow < done ? group.readPastBelow : done;
    const from = finished > offset ? finished : offset;
    for (const pending of this.unacked) if (pending.offset >= from) pending.abandoned = true;
    this.unacked = this.unacked.filter((pending) => !pending.abandoned);
    // Counted from the group's commit when the client resumed past it (the Confluent client
    // resumes where its last batch stopped): records between are not committed either. With
    // no commit (or none read), from the lower of where counting stood and where it resumes.
    if (this.dropped) this.uncommittedFrom = lowest(committed !== undefined && committed >= 0n ? committed : this.uncommittedFrom, offset);
    this.start = offset;
    this.next = from;
    this.dropped = false;
    this.release();
    return from === offset ? undefined : from;
  }

  /** The offset to commit, or -1 while nothing is finished (committing where the partition stood tells Kafka nothing). */
  committable(): bigint {
    const offset = this.unacked.length > 0 ? this.unacked[0]!.offset : this.next;
    return offset > this.start ? offset : -1n;
  }

  /** A publish is held (its copy too large even for the DLQ): later records wait, so a restart does not run them all again. */
  get holding(): boolean {
    return this.unacked.some((pending) => pending.held && !pending.abandoned);
  }

  /** The publish of `pending` is held; whoever waits looks again. */
  hold(pending: PendingPublish): void {
    pending.held = true;
    this.release();
  }

  /**
   * Records taken and not covered by an acknowledged commit: a crash now runs them again.
   * Counted from where the group's commit stood, or from the last acknowledged commit past it.
   */
  get uncommitted(): number {
    const from = this.acknowledgedCommit > this.uncommittedFrom ? this.acknowledgedCommit : this.uncommittedFrom;
    return this.uncommittedFrom < 0n || this.next <= from ? 0 : Number(this.next - from);
  }

  /** One past the last offset taken: where the partition is read on from. */
  get nextOffset(): bigint {
    return this.next;
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
