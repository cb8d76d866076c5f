import type { Clock } from './clock';
import { backoffMs } from './backoff';
import { answeredNo } from './commit-refusal';
import type { PartitionProgress } from './partition-progress';
import { carriesStamp, newCommitterToken, ownCommitStamp } from './own-commit-stamp';
import type { ConsumerPort, OffsetCommit } from './port';

export interface CommitPolicy {
  /** Commit the records done within this many ms in one request; 0 commits each record on its own. */
  readonly intervalMs: number;
  /** Commit at once when this many records wait for a commit. */
  readonly maxRecords: number;
}

/**
 * One commit request per interval instead of one per record: a commit costs a round trip
 * to the group coordinator, which would cap a consumer at one round trip per record. A record is
 * marked only once its publish was acknowledged, so a commit still never runs ahead of
 * the publish; a crash runs again at most the records of one interval (at least once).
 */
export interface OffsetCommitter {
  /**
   * The generation work starting now belongs to (forget() begins the next one). Work that
   * began before a rebalance and ends after it passes its own to mark(), which then commits
   * nothing: the partition is read again from its commit, by whichever member owns it now.
   */
  readonly generation: number;
  /** The record is done: its offset goes out with the next commit, unless `startedIn` is an earlier generation. */
  mark(offset: OffsetCommit, startedIn?: number): Promise<void>;
  /**
   * A record of a pipelined partition is done: the partition's committable offset is read
   * when the commit goes out. Its records taken and not covered by an acknowledged commit
   * count toward `maxRecords`, those behind an unacknowledged publish included (a crash runs
   * them again as well). With `intervalMs: 0` returns the commit to wait for; otherwise,
   * below `maxRecords`, nothing (no promise per record); at `maxRecords` the commits that
   * can make room, to wait for. Room committing cannot make is `holdsBack()`'s.
   */
  markProgress(progress: PartitionProgress): Promise<void> | undefined;
  /**
   * The window is full and committing cannot empty it: records behind unacknowledged
   * publishes fill it, and this partition has some in flight. Its next record waits for one
   * of them; a partition with none goes on (its records are committed as they finish).
   */
  holdsBack(progress: PartitionProgress): boolean;
  /**
   * Undefined while the window has room; when it is full, the commits that can make room, to
   * wait for before a record is taken (as markProgress() returns at maxRecords).
   */
  room(): Promise<void> | undefined;
  /** Commits everything marked; commits never overtake each other. */
  flush(): Promise<void>;
  /**
   * The offset the broker last acknowledged as committed for the partition by this
   * committer, kept across rebalances. A record read below it comes from a log that started
   * over (the topic deleted and created again): its offsets say nothing of what was finished.
   */
  acknowledgedOffset(topic: string, partition: number): bigint | undefined;
  /**
   * Whether the group's commit (`offset`, with its `metadata`) is this committer's own, kept
   * across rebalances. A partition whose commits this committer stamps (stampOwnCommits, a
   * client that carries metadata) knows its own by the stamp alone: a commit the broker stored
   * while its answer was lost is its own, another member's at the same offset is not. Else by
   * the offset: the one the broker last acknowledged, or one sent since whose every send was
   * not answered "no" (one may have been stored while its answer was lost to an outage).
   */
  isOwnCommit(topic: string, partition: number, offset: bigint, metadata?: string | null): boolean;
  /**
   * The partition's log started over (a record was read below its acknowledged offset): what
   * this committer knows of the old log (acknowledged, highest sent, pending) is forgotten,
   * so the new log's commits go out from its offset 0 on, and a later batch of the new log
   * is not taken for yet another new log.
   */
  startsOver(topic: string, partition: number): void;
  /**
   * Nothing more of the partition is committed until allow(), startsOver() or a rebalance: no
   * offset is marked, and a refused commit of it is not tried again (what is queued already
   * goes out with the next commit, as it would have). For a partition paused
   * for a held record, whose log is judged before anything of it is committed (a topic
   * created again meanwhile must not get the old log's position: found by attack 17).
   */
  withhold(topic: string, partition: number): void;
  /** The partition's commits go out again (marked anew by its owner). */
  allow(topic: string, partition: number): void;
  /** After a rebalance: marks of partitions this member may have lost are dropped; their records run again. */
  forget(): void;
  /**
   * For stop(), before it waits for the work in hand: whoever waits for room in the window
   * goes on (stop() waits for that work, and while the broker refuses every commit the room
   * would never come). Their records stay uncommitted if the last flush is refused.
   */
  release(): void;
  /** For stop(), after the last flush: no timer is left, and a refused commit is not tried again. */
  close(): void;
}

/**
 * A window of 10,000 records. A commit round trip costs at least 5 ms on a Kafka 4.1 broker
 * however idle (its group coordinator holds writes to `__consumer_offsets` for
 * `group.coordinator.append.linger.ms`, 5 ms by default), and a consumer whose window is full
 * waits for one: at 2,000 a fast consumer waited every 2,000 records, a large share of its time
 * (the figures are in docs/benchmarks.md).
 * A crash runs at most this many records again per consumer: about what that plain loop runs
 * again, one fetch (1 MiB) of each of six partitions handled side by side, some 12,000 records
 * of 512 bytes. A service that wants fewer run again sets it lower, at that cost.
 */
export const DEFAULT_COMMIT_POLICY: CommitPolicy = { intervalMs: 100, maxRecords: 10_000 };

/** The smallest window whose commit goes out early, at half of it (halfFull in createOffsetCommitter). */
const EARLY_COMMIT_MIN_WINDOW = 1_000;

/**
 * The wait before a refused commit goes out again: 100 ms, doubled by each refusal in a row,
 * at most 1 s. A client that refuses at once while the broker is away (kafkajs with its
 * consumer stopped) would otherwise be asked ten times a second, each refusal an event and a
 * metric, for the whole outage. Short still: a consumer whose window is full waits for this
 * retry once the broker is back.
 */
const REFUSED_RETRY = { backoffMs: 100, maxBackoffMs: 1_000, jitter: 0 };

const partitionKey = (o: { readonly topic: string; readonly partition: number }) => `${o.topic}\u0000${o.partition}`;

export interface OffsetCommitterOptions {
  /**
   * Stamp commits that carry no metadata of their own with this committer's token (on a client
   * that carries metadata), so a rebalance knows the group's commit for its own by the stamp.
   * Unordered consumers only: park-by-key's commits carry its state.
   */
  readonly stampOwnCommits?: boolean;
}

export function createOffsetCommitter(consumer: () => ConsumerPort, clock: Clock, policy: CommitPolicy, onError: (error: unknown) => void, options: OffsetCommitterOptions = {}): OffsetCommitter {
  const token = newCommitterToken();
  /** Partitions whose last commit sent carried this committer's stamp: their own commit is known by it. */
  const stamped = new Set<string>();
  const pending = new Map<string, OffsetCommit>();
  /** Partitions marked through markProgress since the last commit; read at commit time. */
  const progressed = new Set<PartitionProgress>();
  /**
   * The highest offset of each partition handed to a commit request (in this generation).
   * A partition's committed offset only moves forward: an offset lower than it is never
   * sent, so a refused older commit cannot land after a newer one.
   */
  const highest = new Map<string, bigint>();
  /**
   * What each partition's last commit request carried (offset and metadata), until it is
   * refused: marking the same again (a record finished behind one still publishing) sends
   * nothing, so a commit round trip is paid only when the commit moves.
   */
  const sent = new Map<string, string>();
  const sentAs = (o: OffsetCommit) => `${o.offset}\u0000${o.metadata ?? ''}`;
  /** The last commit of each partition the broker acknowledged; not cleared by forget(). */
  const acknowledged = new Map<string, bigint>();
  /**
   * Offsets of each partition sent since its last acknowledged commit, with how many of their
   * sends were not answered "no" (in flight, or the answer lost: maybe stored); an offset whose
   * every send was answered "no" is dropped. Not cleared by forget().
   */
  const sentSinceAcknowledged = new Map<string, Map<bigint, number>>();
  /** How many times each partition's log started over: an answer about an older log is not this log's. */
  const logs = new Map<string, number>();
  /** Records marked by offset (mark()) and not yet in a commit request. */
  let marked = 0;
  /** Marks in commit requests not answered yet (this generation). */
  let inFlightMarks = 0;
  /**
   * Records of each pipelined partition taken and not covered by an acknowledged commit, as
   * last counted (the window's share of markProgress()); a partition a rebalance took away
   * or one held by a copy too large for the DLQ counts nothing (it takes no more records).
   */
  const counted = new Map<PartitionProgress, number>();
  let countedTotal = 0;
  /** The pipelined partition of each key, told when a commit of its partition is acknowledged. */
  const progressOf = new Map<string, PartitionProgress>();
  /** Commit requests sent and not answered. */
  let inFlightCommits = 0;
  let cancelTimer: (() => void) | undefined;
  let last: Promise<void> = Promise.resolve();
  /** Bumped by forget(): a commit refused before a rebalance must not come back after it. */
  let generation = 0;
  let closed = false;
  /** stop() came: no caller waits for room any more. */
  let released = false;
  /**
   * Commits refused in a row since the last one acknowledged (or the last rebalance). While
   * any, the next goes out with the retry's timer, not one per record.
   */
  let refusalsInARow = 0;
  const refused = () => refusalsInARow > 0;
  /** Callers waiting for room in the window, woken when a commit settles, or by forget() and close(). */
  let waiting: (() => void)[] = [];
  const woken = () => new Promise<void>((resume) => waiting.push(resume));
  const wake = () => {
    const callers = waiting;
    waiting = [];
    for (const resume of callers) resume();
  };

  /** Partitions nothing is committed of (withhold()). */
  const withheld = new Set<string>();

  /** Keeps `o` unless a newer offset of its partition is pending or was already sent, or the partition is withheld. */
  function keep(o: OffsetCommit): void {
    const key = partitionKey(o);
    if (withheld.has(key)) return;
    const known = highest.get(key);
    if (known !== undefined && BigInt(o.offset) < known) return;
    // Nor below the partition's last acknowledged commit (forget() clears `highest`): only a
    // log that started over (startsOver()) takes commits below it.
    const acked = acknowledged.get(key);
    if (acked !== undefined && BigInt(o.offset) < acked) return;
    if (sent.get(key) === sentAs(o)) return;
    const queued = pending.get(key);
    if (queued === undefined || BigInt(queued.offset) <= BigInt(o.offset)) pending.set(key, o);
  }

  const commitPending = (): Promise<void> => sendPending() ?? last;

  /** Sends what is pending, or answers undefined when nothing new is to be committed. */
  function sendPending(): Promise<void> | undefined {
    cancelTimer?.();
    cancelTimer = undefined;
    for (const progress of progressed) {
      const offset = progress.committable();
      // A partition a rebalance took away is not ours to commit.
      if (!progress.dropped && offset >= 0n) keep({ topic: progress.topic, partition: progress.partition, offset: offset.toString() });
    }
    progressed.clear();
    const batch = [...pending.values()];
    pending.clear();
    if (batch.length === 0) return undefined;
    const sentMarks = marked;
    marked = 0;
    // The marks stay counted until their commit is answered: the window of records done and
    // not committed stops growing at maxRecords while a commit is in flight.
    inFlightMarks += sentMarks;
    for (const o of batch) {
      highest.set(partitionKey(o), BigInt(o.offset));
      sent.set(partitionKey(o), sentAs(o));
      const unanswered = sentSinceAcknowledged.get(partitionKey(o)) ?? new Map<bigint, number>();
      sentSinceAcknowledged.set(partitionKey(o), unanswered.set(BigInt(o.offset), (unanswered.get(BigInt(o.offset)) ?? 0) + 1));
    }
    const sentIn = generation;
    const logsAtSend = batch.map((o) => logs.get(partitionKey(o)) ?? 0);
    inFlightCommits++;
    const run = last.then(async () => {
      try {
        await consumer().commitOffsets(batch.map(stamp));
        batch.forEach((o, i) => {
          if ((logs.get(partitionKey(o)) ?? 0) !== logsAtSend[i]) return;
          acknowledged.set(partitionKey(o), BigInt(o.offset));
          const unanswered = sentSinceAcknowledged.get(partitionKey(o));
          for (const offset of [...(unanswered?.keys() ?? [])]) if (offset <= BigInt(o.offset)) unanswered!.delete(offset);
          const progress = progressOf.get(partitionKey(o));
          if (progress !== undefined && BigInt(o.offset) > progress.acknowledgedCommit) {
            progress.acknowledgedCommit = BigInt(o.offset);
            count(progress);
          }
        });
        if (sentIn === generation) {
          inFlightMarks -= sentMarks;
          refusalsInARow = 0;
        }
      } catch (error) {
        if (sentIn === generation) inFlightMarks -= sentMarks;
        // Not committed: the same offset marked again must go out again.
        for (const o of batch) if (sent.get(partitionKey(o)) === sentAs(o)) sent.delete(partitionKey(o));
        // Answered "no": this send surely not stored. The offset is still this member's own if an
        // earlier send of it lost its answer (stored, maybe): only when every send was answered "no" is it dropped.
        if (answeredNo(error)) for (const o of batch) answeredNoTo(partitionKey(o), BigInt(o.offset));
        // Keep them for the next commit, unless a newer one of their partition was sent since, or a rebalance came between.
        if (sentIn === generation && !closed) {
          let kept = false;
          for (const o of batch) {
            if (highest.get(partitionKey(o)) === BigInt(o.offset) && !pending.has(partitionKey(o)) && !withheld.has(partitionKey(o))) {
              pending.set(partitionKey(o), o);
              kept = true;
            }
          }
          // Their records are still not committed: they count toward the window until a commit
          // lands, also when a newer commit of their partitions covers them (it counts only its
          // own records, and may be refused too).
          marked += sentMarks;
          if (kept) {
            refusalsInARow++;
            schedule();
          }
        }
        throw error;
      } finally {
        inFlightCommits--;
        wake();
      }
    });
    last = run.catch(() => {});
    return run;
  }

  /** A commit of the partition without metadata of its own carries this committer's stamp (when it stamps, on a client that carries metadata). */
  function stamp(o: OffsetCommit): OffsetCommit {
    const key = partitionKey(o);
    if (o.metadata !== undefined || !options.stampOwnCommits || consumer().carriesCommitMetadata !== true) {
      stamped.delete(key);
      return o;
    }
    stamped.add(key);
    return { ...o, metadata: ownCommitStamp(token, logs.get(key) ?? 0) };
  }

  function answeredNoTo(key: string, offset: bigint): void {
    const unanswered = sentSinceAcknowledged.get(key);
    const left = (unanswered?.get(offset) ?? 0) - 1;
    if (left > 0) unanswered!.set(offset, left);
    else unanswered?.delete(offset);
  }

  /** Counts again what `progress` adds to the window. */
  function count(progress: PartitionProgress): void {
    const now = progress.dropped ? 0 : progress.uncommitted;
    const before = counted.get(progress) ?? 0;
    if (now === 0) counted.delete(progress);
    else counted.set(progress, now);
    countedTotal += now - before;
  }

  /** When the window looks full: each partition counted afresh, held ones left out (they take nothing more). */
  function countAll(): void {
    for (const progress of [...counted.keys()]) {
      if (progress.holding) {
        countedTotal -= counted.get(progress)!;
        counted.delete(progress);
      } else count(progress);
    }
  }

  const windowFull = () => marked + inFlightMarks + countedTotal >= policy.maxRecords;
  /**
   * Half the window used with no commit in flight: the commit goes out now, not at the
   * interval's end, so room comes back before the window fills. A consumer faster than
   * maxRecords per interval (10,000 per 100 ms) otherwise filled it between two commits and
   * waited a commit round trip each time (the Confluent client, 512-byte records: a third of
   * its batches' time at 1% failing, where records behind unacknowledged publishes fill it sooner).
   * Not under EARLY_COMMIT_MIN_WINDOW records: a window that small is filled in less than a
   * commit round trip anyway, and committing at its half would only double the commits.
   * Asked only with no commit in flight, so no mark is in flight either (inFlightMarks is 0).
   */
  const halfFull = () => policy.maxRecords >= EARLY_COMMIT_MIN_WINDOW && 2 * (marked + countedTotal) >= policy.maxRecords;

  /**
   * Backpressure: at maxRecords records done and not committed (in flight included) the
   * caller waits until they are, so a crash runs again at most maxRecords records, refused
   * commits or not. After a refusal it waits for the interval's retry rather than sending a
   * commit per record; a rebalance, release() or close() ends the wait (those records run
   * again anyway). It ends too when nothing is left to send or to hear back: what fills the
   * window then lies behind unacknowledged publishes (see holdsBack()).
   */
  /**
   * The one wait for room in flight: every caller waits for the same one (found by attack 10:
   * a batch that stopped waiting at its budget left its wait behind, and while the coordinator
   * refused commits the waits grew by one a second per partition, each woken by every retry).
   */
  let roomWait: Promise<void> | undefined;
  function waitForRoom(): Promise<void> {
    roomWait ??= untilRoom().finally(() => (roomWait = undefined));
    return roomWait;
  }

  async function untilRoom(): Promise<void> {
    const startedIn = generation;
    while (startedIn === generation && !closed && !released) {
      if (!windowFull()) return;
      countAll();
      if (!windowFull()) return;
      // After a refusal the retry's timer sends; with none set (the refused offsets were not
      // kept: their partition withheld, or overtaken) nobody would, and the window stayed full
      // for good (found by attack 17's property).
      if (refused() && cancelTimer !== undefined) {
        await woken();
        continue;
      }
      // The send is raced with a wake: a commit the broker never answers (it is away) must not
      // hold the wait past a rebalance, release() or close().
      const sending = sendPending();
      if (sending !== undefined) await Promise.race([sending.catch(onError), woken()]);
      else if (inFlightCommits > 0) await woken();
      else return;
    }
  }

  /**
   * Each record committed on its own (interval 0): a refusal is reported, not thrown (its
   * offsets go out again with the retry), and its records stay in the window: at maxRecords
   * the caller waits for the retry as with any interval.
   */
  async function commitEach(): Promise<void> {
    try {
      await commitPending();
    } catch (error) {
      onError(error);
      if (windowFull()) await waitForRoom();
    }
  }

  /** At half the window with no commit in flight, the commit goes out now (halfFull); else at the interval's end. */
  function commitEarlyOrSchedule(): void {
    if (halfFull() && inFlightCommits === 0 && !refused() && !closed) commitPending().catch(onError);
    else schedule();
  }

  function schedule(): void {
    if (closed) return;
    // After a refusal not sooner than the retry's wait: with an interval of 0 a refused commit
    // would otherwise go out again at every turn of the event loop while the broker is away.
    const delay = refused() ? Math.max(policy.intervalMs, backoffMs(refusalsInARow, REFUSED_RETRY)) : policy.intervalMs;
    cancelTimer ??= clock.setTimer(delay, () => {
      cancelTimer = undefined;
      const sending = sendPending();
      // Nothing left to send (startsOver() took a refused commit's offsets): no commit will
      // settle to wake the callers waiting for this retry, so they look again now (review 49).
      if (sending === undefined) wake();
      else sending.catch(onError);
    });
  }

  return {
    get generation() {
      return generation;
    },
    async mark(offset, startedIn = generation) {
      if (startedIn !== generation) return;
      keep(offset);
      marked++;
      if (policy.intervalMs <= 0) await commitEach();
      // A refused commit is reported, not thrown: its offsets go out with the next one.
      else if (windowFull()) await waitForRoom();
      else commitEarlyOrSchedule();
    },
    markProgress(progress) {
      progressed.add(progress);
      if (!counted.has(progress)) progressOf.set(partitionKey(progress), progress);
      count(progress);
      if (policy.intervalMs <= 0) return commitEach();
      if (windowFull()) return waitForRoom();
      commitEarlyOrSchedule();
      return undefined;
    },
    holdsBack: (progress) => windowFull() && !progress.dropped && progress.inFlight > 0 && !progress.holding,
    room() {
      if (!windowFull()) return undefined;
      countAll();
      return windowFull() ? waitForRoom() : undefined;
    },
    flush: () => commitPending(),
    acknowledgedOffset: (topic, partition) => acknowledged.get(partitionKey({ topic, partition })),
    isOwnCommit: (topic, partition, offset, metadata) => {
      const key = partitionKey({ topic, partition });
      if (stamped.has(key)) return carriesStamp(metadata, ownCommitStamp(token, logs.get(key) ?? 0));
      return acknowledged.get(key) === offset || (sentSinceAcknowledged.get(key)?.has(offset) ?? false);
    },
    startsOver: (topic, partition) => {
      const key = partitionKey({ topic, partition });
      logs.set(key, (logs.get(key) ?? 0) + 1);
      for (const known of [acknowledged, highest, sent, pending, sentSinceAcknowledged, stamped]) known.delete(key);
      withheld.delete(key);
      // What a wait for room waited on may be gone with them.
      wake();
    },
    withhold: (topic, partition) => {
      // What was marked until now goes out as it would have: the log is the one it was taken in.
      for (const progress of progressed) {
        const offset = progress.topic === topic && progress.partition === partition && !progress.dropped ? progress.committable() : -1n;
        if (offset >= 0n) keep({ topic, partition, offset: offset.toString() });
      }
      withheld.add(partitionKey({ topic, partition }));
    },
    allow: (topic, partition) => {
      withheld.delete(partitionKey({ topic, partition }));
    },
    forget() {
      generation++;
      withheld.clear();
      cancelTimer?.();
      cancelTimer = undefined;
      pending.clear();
      progressed.clear();
      highest.clear();
      sent.clear();
      counted.clear();
      countedTotal = 0;
      marked = 0;
      inFlightMarks = 0;
      refusalsInARow = 0;
      wake();
    },
    release() {
      released = true;
      wake();
    },
    close() {
      closed = true;
      cancelTimer?.();
      cancelTimer = undefined;
      pending.clear();
      progressed.clear();
      wake();
    },
  };
}
