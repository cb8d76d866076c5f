import { isAnotherRecordAt, isSameRecord, recordIdentity } from './record-identity';
import type { OffsetCommit, TopicPartitionOffset } from './port';
import type { HandleOutcome } from './record-handler';
import type { ConsumedRecord } from './router';

/**
 * Park-by-key: a tier record the hold cannot judge (replayed from the DLQ, from before a
 * lost state, without a readable original offset) that came due while its key was busy (in
 * retry, or with parked records), or while the state had no room for the hold it may take.
 * It runs when its key's turn comes, as a main record of a held key would.
 */
export interface WaitingTierRecord {
  readonly record: ConsumedRecord;
  readonly hash: string;
  /** The main partition's position when it came due: parked main records before it are ahead of it. */
  readonly behind: bigint;
  /**
   * When it came due by its own header (`x-due-at`), for a record that waits its key's turn:
   * a parked record of its key written after that (its timestamp) is behind it too, whatever
   * the position says. `behind` lives in memory only, and read again in a new generation (a
   * restart, a rebalance) the record took the position then, past records parked after it
   * came due, which ran ahead of it (found by attack 29); the timestamps are in the records.
   */
  readonly dueAt?: number;
  /**
   * The parked main record this is a copy of, when it came due while its record was still
   * parked: a copy from a run whose state was never committed (a crash between the copy and
   * the commit). It waits right behind that record, and is judged when its turn comes: stale
   * if the record ran again, run in its place if the record was given up (retention took it).
   */
  readonly copyOf?: bigint;
  readonly handle: (parkState?: string) => Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }>;
}

/**
 * The waiting tier records of one generation of a consumer's assignment, by main partition
 * (tier partition p holds the retries of main partition p), and the commits of the tier
 * partitions. They wait in memory only: the commit of their tier partition stays at the
 * oldest of them, so a restart or a rebalance reads them again (and the hold check skips
 * the copies of records done). A rebalance starts a new one: a record whose handling began
 * before it and ends after it writes to the old one, and so never raises a commit of the
 * generation that reads the partition again (and may still wait for records before it).
 */
export interface TierTurns {
  /** Adds a record to its key's queue; false if it already waits there (delivered again). */
  wait(partition: number, entry: WaitingTierRecord): boolean;
  /**
   * The key's next waiting tier record: the one whose place (`behind`) comes first, the first
   * to wait of those. A copy from below a give-up's mark waits in its record's place, before a
   * turn that came earlier to wait at the position (found by attack 24: a replay waiting first
   * put a given-up record's copy after its key's newer parked record).
   */
  next(partition: number, hash: string): WaitingTierRecord | undefined;
  /**
   * It ran: it no longer holds back its tier partition's commit. Until the operation's commit
   * is accepted (`settled`) it can come back (`restore`).
   */
  done(partition: number, entry: WaitingTierRecord): void;
  /** The partition's operation committed: the records it ran are done for good. */
  settled(partition: number): void;
  /**
   * The partition's operation failed: the records it ran wait their turn again, first of their
   * keys. What their run changed in the state (a hold) was not stored and is read anew, and
   * their tier records are not read again (the failed operation was another record's): out of
   * the turns they would never run again in turn (found by attack 13: a replay's hold lost
   * with a refused commit, and its copy skipped as stale). They run once more: at least once.
   */
  restore(partition: number): void;
  waits(partition: number, hash: string): boolean;
  /** The keys with a waiting record, oldest first. */
  keys(partition: number): string[];
  /**
   * The commit of a tier partition whose records are done up to `commit`: never past a
   * record still waiting there, which a restart must read again. Nothing is recorded until
   * the broker accepts it (`accepted`).
   */
  commit(commit: TopicPartitionOffset): TierCommit;
  /**
   * The broker stored a tier commit: its records are done for good. Recorded only then: a
   * record whose commit was refused is not done (the state that covers it, its hold, was not
   * stored either) and is read again, so another operation's commit must not pass it.
   * `storedOffset`: the offset the broker stored, which a kept position anchors one record back
   * (the group's commit of the partition from then on, unless something else moved it).
   */
  accepted(commit: TierCommit, storedOffset: string): void;
  /**
   * Tier commits the broker refused after the state they go with was stored: owed, and sent
   * before the partition's next state (parking-commits.ts commit), so that the broker never holds a
   * state ahead of the tier commits of the state before it. A replay's run is recorded by its
   * tier's commit alone (no hold judges a replay): with a later state stored over it, a rebalance
   * read the replay again as fresh, and it ran after a newer record of its key (found by the CI of
   * session 40). A later commit of the same tier partition accepted pays it.
   */
  owe(partition: number, commits: readonly OwedTierCommit[]): void;
  /**
   * A tier record this generation knows is done: judged stale, skipped as done, or run unjudged
   * with the state after its run stored. Read again in this generation (its commit refused, the
   * operation failed), it is skipped whatever the state says by then: judged again after its
   * key's hold had moved on, a replay read again was a fresh one and ran after a newer record of
   * its key (found by attack 19's property at seed 42, where the state had no room to name it).
   * Forgotten once an accepted commit of its partition passes it, or its log moves back.
   */
  knownDone(record: ConsumedRecord): void;
  isKnownDone(record: ConsumedRecord): boolean;
  /** What `owe` keeps for main partition p and no accepted commit has paid since. */
  owed(partition: number): OwedTierCommit[];
  /** Drops a debt that can no longer be paid (its tier's log gone, or committed past it). */
  forgive(partition: number, debt: OwedTierCommit): void;
  /**
   * A tier record is read: one below the last read of its partition, or another record at its
   * offset, means the log moved back (the tier deleted and created again with no rebalance,
   * its offsets reset), and how far the old log was handled says nothing of the new one (found
   * by attack 12: the old log's offset was committed on the new log, past records never run).
   * The same record read again at its own offset (a held one, a failed operation), or at any
   * offset this generation read it at since the partition's last accepted commit (a seek
   * applied late, a fetch repeated), is no move back.
   */
  read(record: ConsumedRecord): void;
  /**
   * The tier partition's topic was created again (told by its topic id, read before its next
   * record): as a move back, whatever the next record's offset (a new log whose first records
   * are control records, never handed out, starts past the old log's last read).
   */
  logRecreated(topic: string, partition: number): void;
  /** Main partition p's state was loaded at `position`, at time `at`: the first load of this generation is kept (`generationBegan`). */
  loaded(partition: number, position: bigint, at: number): void;
  /** Main partition p's state's position and the time when this generation first loaded it: records parked below it were parked in an earlier generation. */
  generationBegan(partition: number): GenerationBegan | undefined;
  /** A load stored the group's commit of a tier partition at `offset` (parking's stamp): the last one accepted from this generation. */
  stamped(topic: string, partition: number, offset: bigint): void;
  /** How far a tier partition is handled in this generation, by its accepted commits: every record below is done or waiting (records run one at a time). */
  handledBelow(topic: string, partition: number): bigint | undefined;
  /** The offset the broker stored with the last tier commit it accepted from this generation (the group's commit of the partition since, unless something moved it). */
  lastAccepted(topic: string, partition: number): bigint | undefined;
  /** A tier partition's records waiting their turn (of its log now). */
  waitingAt(topic: string, partition: number): ConsumedRecord[];
  /**
   * It waited on a log of its tier partition that has since moved back (the tier deleted and
   * created again with no rebalance): it still runs in its turn (its copy is made from the record
   * in memory), but its offset names nothing of the log now, so it never matches a record read
   * now, never holds back this log's commit, and commits nothing on it (found by attack 14: a new
   * record at its offset was taken for it delivered again and never ran, and its commit passed
   * the new log's records, both LOST).
   */
  ofAnotherLog(entry: WaitingTierRecord): boolean;
  /**
   * The record at `offset` with this timestamp was read in this generation as the anchor of a
   * kept tier position (read at a commit's offset, or committed as one): a state loaded again
   * after a failed operation believes a position anchored there without reading it again, as
   * the partition is not read again from its commit (found by attack 13: every record behind
   * a refused skip commit ran again).
   */
  anchored(topic: string, partition: number, offset: bigint, timestamp: bigint): void;
  /** Whether the last anchor of the tier partition this generation read is the one at `offset` with this timestamp. */
  isAnchored(topic: string, partition: number, offset: bigint, timestamp: bigint): boolean;
}

/** Where and when a generation began for one main partition: its state's position and the time at its first load. */
export interface GenerationBegan {
  readonly position: bigint;
  readonly at: number;
}

/**
 * Whether a waiting tier record runs before its key's oldest parked record (at `next`, read
 * again or not: `parked`): there is none, or it was parked at or past the position the waiting
 * record came due at (`behind`). That place lives in memory only: a waiting record that came
 * due before this generation `began` (a restart, a rebalance) was read again and took the
 * position then, past records parked after it first came due, which ran ahead of it (found by
 * attack 29). For such a record, a record parked in an earlier generation (below the position
 * then) runs after it when it was written after it came due (its timestamp past the due time,
 * never taken before the waiting record's own timestamp: an `x-due-at` of 0 or copied from an
 * older record is no earlier place). Everything else keeps the place by position alone: the
 * timestamps are the producers' clocks, which need not follow the log (found by review 53: a
 * producer clock ahead put a replay before a record parked before it came due). Ties go to the
 * parked record.
 */
export function runsBeforeParked(turn: WaitingTierRecord, next: bigint | undefined, parked: ConsumedRecord | undefined, began: GenerationBegan | undefined): boolean {
  if (next === undefined || next >= turn.behind) return true;
  if (turn.dueAt === undefined || parked === undefined || began === undefined || next >= began.position) return false;
  const [written, dueWritten] = [Number(parked.message.timestamp), Number(turn.record.message.timestamp)];
  const due = Number.isSafeInteger(dueWritten) ? Math.max(turn.dueAt, dueWritten) : turn.dueAt;
  return due < began.at && Number.isSafeInteger(written) && written > due;
}

/** A refused tier commit: as asked for, as sent (with the metadata of the state stored then), and over which group commit. */
export interface OwedTierCommit {
  readonly commit: TierCommit;
  readonly sent: OffsetCommit;
  /** The group's commit of its tier partition as this member knew it when it was owed: paid only over that one. */
  readonly over: bigint;
}

/** A tier commit, with how far its partition is handled once the broker accepts it. */
export interface TierCommit extends TopicPartitionOffset {
  /** Every record below it is done or waiting (what `handledBelow` says once this commit is accepted). */
  readonly handledBelow: bigint;
}

export function createTierTurns(): TierTurns {
  const waiting = new Map<number, WaitingTierRecord[]>();
  /** Ran in an operation not yet committed, per partition, in the order they ran. */
  const unsettled = new Map<number, WaitingTierRecord[]>();
  /** The furthest commit the broker accepted, per tier partition. */
  const doneUpTo = new Map<string, bigint>();
  /** The offset of the last commit the broker accepted, per tier partition. */
  const acceptedAt = new Map<string, bigint>();
  /** The last record read, per tier partition. */
  const lastRead = new Map<string, ConsumedRecord['message']>();
  /** The records read at or past the last accepted commit, by offset, per tier partition: what a read below the last one may be read again. */
  const readAt = new Map<string, Map<bigint, string>>();
  /** The last anchor read or committed, per tier partition. */
  const anchors = new Map<string, string>();
  /** How often each tier partition's log moved back in this generation. */
  const logs = new Map<string, number>();
  /** The log each waiting record was read on. */
  const logOf = new WeakMap<WaitingTierRecord, number>();
  /** Records known done, by identity, per tier partition. */
  const known = new Map<string, Map<string, bigint>>();
  // The record itself (offset, time, key, value), not its offset and time alone: another log's record there is another (attack 28).
  const identity = (r: ConsumedRecord) => recordIdentity(r.message);
  /** Each main partition's state's position, and the time, when this generation first loaded it. */
  const began = new Map<number, GenerationBegan>();
  /** Refused tier commits of a stored state, per main partition. */
  const owedBy = new Map<number, OwedTierCommit[]>();
  /** Pays what is owed for one tier partition: a commit of it accepted, or its log gone. */
  const paid = (topic: string, partition: number) => {
    const rest = (owedBy.get(partition) ?? []).filter((o) => o.commit.topic !== topic);
    if (rest.length > 0) owedBy.set(partition, rest);
    else owedBy.delete(partition);
  };
  const id = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  const logNow = (r: ConsumedRecord) => logs.get(id(r.topic, r.partition)) ?? 0;
  const ofThisLog = (w: WaitingTierRecord) => logOf.get(w) === logNow(w.record);
  // The same record, not only the same offset: a new log's record at a waiting one's offset is another (attack 15).
  const same = (a: ConsumedRecord, b: ConsumedRecord) => a.topic === b.topic && a.partition === b.partition && isSameRecord(a.message, b.message);
  const of = (partition: number) => waiting.get(partition) ?? [];
  /** How far the old log was handled, and its anchor, say nothing of the new one. */
  const newLog = (key: string, topic: string, partition: number) => {
    paid(topic, partition);
    known.delete(key);
    readAt.delete(key);
    doneUpTo.delete(key);
    acceptedAt.delete(key);
    anchors.delete(key);
    logs.set(key, (logs.get(key) ?? 0) + 1);
  };

  return {
    wait(partition, entry) {
      const queue = of(partition);
      if (queue.some((w) => ofThisLog(w) && same(w.record, entry.record))) return false;
      logOf.set(entry, logNow(entry.record));
      waiting.set(partition, [...queue, entry]);
      return true;
    },
    next: (partition, hash) => of(partition).reduce<WaitingTierRecord | undefined>((first, w) => (w.hash === hash && (first === undefined || w.behind < first.behind) ? w : first), undefined),
    done(partition, entry) {
      const rest = of(partition).filter((w) => w !== entry);
      if (rest.length > 0) waiting.set(partition, rest);
      else waiting.delete(partition);
      unsettled.set(partition, [...(unsettled.get(partition) ?? []), entry]);
    },
    settled: (partition) => void unsettled.delete(partition),
    restore(partition) {
      const ran = unsettled.get(partition) ?? [];
      unsettled.delete(partition);
      if (ran.length > 0) waiting.set(partition, [...ran, ...of(partition)]);
    },
    waits: (partition, hash) => of(partition).some((w) => w.hash === hash),
    keys: (partition) => [...new Set(of(partition).map((w) => w.hash))],
    commit(commit) {
      const accepted = doneUpTo.get(id(commit.topic, commit.partition));
      const done = accepted === undefined || BigInt(commit.offset) > accepted ? BigInt(commit.offset) : accepted;
      let offset = done;
      for (const w of of(commit.partition)) {
        const at = BigInt(w.record.message.offset);
        if (w.record.topic === commit.topic && ofThisLog(w) && at < offset) offset = at;
      }
      return { topic: commit.topic, partition: commit.partition, offset: offset.toString(), handledBelow: done };
    },
    accepted(commit, storedOffset) {
      const key = id(commit.topic, commit.partition);
      acceptedAt.set(key, BigInt(storedOffset));
      const before = doneUpTo.get(key);
      if (before === undefined || commit.handledBelow > before) doneUpTo.set(key, commit.handledBelow);
      paid(commit.topic, commit.partition);
      for (const [record, offset] of known.get(key) ?? []) if (offset < BigInt(commit.offset)) known.get(key)!.delete(record);
      // Kept in offset order (a read below the last one is of a record already there, or clears the map as a new log): the first one past stops.
      const read = readAt.get(key);
      for (const offset of read?.keys() ?? []) {
        if (offset >= BigInt(storedOffset)) break;
        read!.delete(offset);
      }
    },
    knownDone(record) {
      const key = id(record.topic, record.partition);
      known.set(key, (known.get(key) ?? new Map<string, bigint>()).set(identity(record), BigInt(record.message.offset)));
    },
    isKnownDone: (record) => known.get(id(record.topic, record.partition))?.has(identity(record)) === true,
    owe(partition, commits) {
      const topics = new Set(commits.map((o) => o.commit.topic));
      owedBy.set(partition, [...(owedBy.get(partition) ?? []).filter((o) => !topics.has(o.commit.topic)), ...commits]);
    },
    owed: (partition) => [...(owedBy.get(partition) ?? [])],
    forgive(partition, debt) {
      const rest = (owedBy.get(partition) ?? []).filter((o) => o !== debt);
      if (rest.length > 0) owedBy.set(partition, rest);
      else owedBy.delete(partition);
    },
    logRecreated(topic, partition) {
      newLog(id(topic, partition), topic, partition);
      lastRead.delete(id(topic, partition));
    },
    read(record) {
      const key = id(record.topic, record.partition);
      const last = lastRead.get(key);
      const offset = BigInt(record.message.offset);
      // Below the last read, or another record at its offset (a log read only at offset 0, then made again: attack 15);
      // but not a record this generation read at that offset already: the same log read again (a seek applied late, a
      // client's fetch repeated), whose waiting records taken for another log's let a commit pass them (attack 45: LOST).
      const movedBack = last !== undefined && (offset < BigInt(last.offset) || isAnotherRecordAt(last, record.message));
      const itself = identity(record);
      if (movedBack && readAt.get(key)?.get(offset) !== itself) newLog(key, record.topic, record.partition);
      const read = (readAt.get(key) ?? new Map<bigint, string>()).set(offset, itself);
      // Bounded: a commit held back for long by a waiting record must not hold every record read since (the oldest go: read again, they count as a new log, as before).
      if (read.size > READ_AT_MOST) read.delete(read.keys().next().value!);
      readAt.set(key, read);
      lastRead.set(key, record.message);
    },
    loaded(partition, position, at) {
      if (!began.has(partition)) began.set(partition, { position, at });
    },
    generationBegan: (partition) => began.get(partition),
    stamped: (topic, partition, offset) => void acceptedAt.set(id(topic, partition), offset),
    handledBelow: (topic, partition) => doneUpTo.get(id(topic, partition)),
    lastAccepted: (topic, partition) => acceptedAt.get(id(topic, partition)),
    waitingAt: (topic, partition) => of(partition).filter((w) => w.record.topic === topic && ofThisLog(w)).map((w) => w.record),
    ofAnotherLog: (entry) => !ofThisLog(entry),
    anchored: (topic, partition, offset, timestamp) => void anchors.set(id(topic, partition), `${offset}@${timestamp}`),
    isAnchored: (topic, partition, offset, timestamp) => anchors.get(id(topic, partition)) === `${offset}@${timestamp}`,
  };
}

/** Most records remembered by offset per tier partition (TierTurns.read), some 1 MB of identities. */
const READ_AT_MOST = 10_000;

/** One commit per partition, the last asked for (commits of one partition are asked for in rising order). */
export function lastPerPartition<C extends TopicPartitionOffset>(commits: readonly C[]): C[] {
  const byPartition = new Map<string, C>();
  for (const c of commits) {
    const key = `${c.topic}\u0000${c.partition}`;
    byPartition.delete(key);
    byPartition.set(key, c);
  }
  return [...byPartition.values()];
}
