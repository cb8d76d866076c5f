import { systemClock } from './clock';
import { settlesWithin } from './settles-within';
import { RESUME_RETRY_MS } from './resume-retry';
import type { Clock } from './clock';
import type { OffsetCommitter } from './offset-committer';
import { PartitionProgress } from './partition-progress';
import type { GroupCommitView, PendingPublish } from './partition-progress';
import type { ConsumerPort, EachBatchPayload } from './port';
import type { Published, RecordHandler, RoutedFailure } from './record-handler';
import type { ConsumedRecord } from './router';
import { StopRequested } from './stop-requested';
import { groupCommitOf, judgeLog } from './group-commit';
import { isNewLog } from './new-log';
import type { LogIds } from './log-ids';
import { readLogStart } from './log-start';
import { recordIdentity } from './record-identity';
import { judgeReadAtAnchor, judgeRewind } from './resume-anchor';
import type { RewindJudgement } from './resume-anchor';
import type { PortMessage } from './port';

export interface MainPipelineOptions {
  readonly consumer: () => ConsumerPort;
  /** What happens to each record: the handler, its in-place retries, the publish of a failure. */
  readonly records: RecordHandler;
  readonly commits: OffsetCommitter;
  readonly stopping: () => boolean;
  /** Keeps a background publish where stop() waits for it. */
  readonly track: (work: Promise<void>) => void;
  readonly onCommitError: (error: unknown) => void;
  /** Most unacknowledged publishes per partition; at the limit the partition waits (memory stays bounded while the broker refuses). */
  readonly maxInFlight: number;
  readonly now: () => number;
  /** For timers (the read of the group's commit after a rebalance); the system's by default. */
  readonly clock?: Clock;
  /** The topic id each partition was last read under, where the client tells ids: none are compared without. */
  readonly logIds?: LogIds;
}

/**
 * kafkajs heartbeats only between batches and when asked: a long batch of slow records
 * asks every second (below its default 3 s interval), as its eachMessage loop did after
 * each record, without a promise per record.
 */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * A batch ends after this much handling; the client fetches its other records again. The
 * Confluent client clears its cache and seeks its partitions back once no fetch happened
 * within its max.poll.interval.ms (its `rebalanceTimeout`): with six partitions each in a
 * long batch of slow records none happened, and records ran again (some 45 a minute in the
 * crash test, where that interval is 10 s). kafkajs stops a batch between records as well.
 */
const BATCH_BUDGET_MS = 1_000;

/**
 * How often a batch asks the client whether it went stale (a seek, the consumer
 * stopping). kafkajs answers by building a key string: asked per record it cost a third
 * of a fast consumer's time. A rebalance and stop() are seen at every record anyway, and
 * a record taken from a stale batch only runs twice, never past an unfinished one.
 */
const STALE_CHECK_EVERY_MS = 10;

export interface MainPipeline {
  onBatch(batch: EachBatchPayload): Promise<void>;
  /** After a rebalance: nothing is committed for a partition until its next batch says where it resumes. */
  forget(): void;
  /** For stop(): nobody waits for an acknowledgement any more. */
  release(): void;
}

/**
 * The main topic of an unordered consumer, a batch at a time per partition, partitions
 * side by side. Within a partition the handler runs record after record (in-place
 * retries hold the partition, by design), but a failure's publish runs in the background:
 * the next records go on, and the commit stops at the oldest unacknowledged publish.
 */
/** The key of a partition in the pipeline's maps. */
const partitionId = (at: { readonly topic: string; readonly partition: number }) => `${at.topic}\u0000${at.partition}`;

export function createMainPipeline(options: MainPipelineOptions): MainPipeline {
  const partitions = new Map<string, PartitionProgress>();
  const failures = new WeakMap<PartitionProgress, unknown>();
  /**
   * Partitions paused while their held publish waits. A rebalance resumes them (kafkajs keeps
   * a pause across one, and the partition is read again from its commit by whoever owns it).
   */
  const heldPaused = new Set<PartitionProgress>();
  /**
   * Partitions a rebalance took out of heldPaused whose resume the client refused: tried again
   * until it lands, unless a new hold pauses the partition first (found by attack 18: left in
   * heldPaused, a partition held again was taken for paused and spun through its batches).
   */
  const resumeOwed = new Set<PartitionProgress>();
  /** The record each partition was first read at (created, or resumed after a rebalance): proof of the same log without a commit. */
  const firstTaken = new WeakMap<PartitionProgress, string>();
  /** The last record each partition took: where a partition a held publish paused is read again from, and checked. */
  const lastTaken = new WeakMap<PartitionProgress, PortMessage>();
  /**
   * Partitions a held publish paused, sought back to their last record taken and not read
   * since: the first record read there says whether the log is still the one they paused in
   * (readAtAnchor). Nothing of theirs is committed until it has (found by attack 16: the held
   * copy's acknowledgement committed the old log's position onto a new one).
   */
  const resumedAtAnchor = new Map<PartitionProgress, { readonly anchor: PortMessage; readonly movedBackTo?: bigint }>();
  /** The offset a partition sought to its anchor was last read from below it (a client that did not read from the seek, once). */
  const readBelowAnchor = new WeakMap<PartitionProgress, string>();

  /**
   * At the first batch after a rebalance: what the group's commit says. Below this member's
   * acknowledged commit it is a new log (a live group's commit moves back only when the
   * topic was created again: the group's commits went with the old one), read from wherever
   * the client starts it, not only from offset 0.
   */
  async function groupViewOf(batch: EachBatchPayload, first: PortMessage, progress: PartitionProgress, acknowledged: bigint | undefined): Promise<GroupCommitView | 'new-log'> {
    const read = await groupCommitOf(options.consumer(), batch, options.clock ?? systemClock);
    const committed = read?.offset;
    const own = read !== undefined && options.commits.isOwnCommit(batch.topic, batch.partition, read.offset, read.metadata);
    const judged = judgeLog(committed, acknowledged, own, firstTaken.get(progress) === recordIdentity(first));
    if (judged === 'new-log') return judged;
    return { committed, readPast: judged !== 'run-again', ...(judged === 'read-past-acknowledged' ? { readPastBelow: acknowledged } : {}) };
  }

  /** The batch's partition, resumed if need be; undefined when the batch is to be read again from an earlier record. */
  async function progressOf(batch: EachBatchPayload, messages: readonly PortMessage[]): Promise<PartitionProgress | undefined> {
    const id = partitionId(batch);
    const first = BigInt(messages[0]!.offset);
    let progress = partitions.get(id);
    const acknowledged = options.commits.acknowledgedOffset(batch.topic, batch.partition);
    const group = progress?.dropped ? await groupViewOf(batch, messages[0]!, progress, acknowledged) : undefined;
    const rewind = progress !== undefined && group === undefined && progress.mustResume(first) ? judgeRewindOf(batch, messages, progress) : undefined;
    if (rewind === 'read-anchor') return undefined;
    if (progress !== undefined && (group === 'new-log' || rewind === 'new-log' || isNewLog(first, acknowledged))) {
      // From offset 0, below a commit the broker acknowledged: the topic was deleted and
      // created again (its offsets start over, the group's commits went with it). What was
      // finished or in flight in the old log says nothing of this one: its publishes give up,
      // and it starts afresh.
      startOver(progress);
      progress = undefined;
    }
    if (progress === undefined) {
      progress = new PartitionProgress(batch.topic, batch.partition);
      partitions.set(id, progress);
      firstTaken.set(progress, recordIdentity(messages[0]!));
    } else if (progress.mustResume(first)) {
      // After a rebalance or a seek: the records from `first` on run again (their old
      // publishes give up), earlier publishes still hold the commit. A record whose
      // publish a revocation ended is read again, here as by any other owner. Records this
      // member finished already (their commit lost to the rebalance: a broker outage, an
      // expired session) are read past, and committed.
      const elsewhere = progress.resume(first, group === 'new-log' ? undefined : group);
      if (elsewhere !== undefined) {
        options.consumer().seek({ topic: batch.topic, partition: batch.partition, offset: elsewhere.toString() });
        options.commits.markProgress(progress)?.catch(options.onCommitError);
        return undefined;
      }
      failures.delete(progress);
      if (group !== undefined) firstTaken.set(progress, recordIdentity(messages[0]!));
    }
    return progress;
  }

  /**
   * A batch below the partition's next offset with no rebalance: the client read again from
   * earlier by itself. Judged by the partition's anchor (its last record taken) when the batch
   * reaches back to it; when the batch ends before it with nothing else to tell, the partition
   * is sought to the anchor and judged there (readAtAnchor), nothing of it committed meanwhile.
   */
  function judgeRewindOf(batch: EachBatchPayload, messages: readonly PortMessage[], progress: PartitionProgress): RewindJudgement | undefined {
    const anchor = lastTaken.get(progress);
    if (anchor === undefined || BigInt(messages[0]!.offset) > BigInt(anchor.offset)) return undefined;
    const judged = judgeRewind(anchor, messages, batch.highWatermark);
    if (judged === 'read-anchor') {
      options.commits.withhold(progress.topic, progress.partition);
      resumedAtAnchor.set(progress, { anchor });
      options.consumer().seek({ topic: batch.topic, partition: batch.partition, offset: anchor.offset });
    }
    return judged;
  }

  /** What was finished or in flight in the old log says nothing of a new one: its publishes give up, and its commits start afresh. */
  function startOver(progress: PartitionProgress): void {
    progress.revoke();
    resumedAtAnchor.delete(progress);
    options.commits.startsOver(progress.topic, progress.partition);
  }

  /**
   * A batch of a partition sought back to its anchor after a hold: the records to take (past
   * the anchor, when it was read again), or undefined when the partition is read again from
   * elsewhere: from its start on a new log, from the anchor when the client read elsewhere.
   */
  async function readAtAnchor(batch: EachBatchPayload): Promise<readonly PortMessage[] | undefined> {
    const progress = partitions.get(partitionId(batch));
    const waiting = progress === undefined ? undefined : resumedAtAnchor.get(progress);
    if (progress === undefined || waiting === undefined) return batch.messages;
    const { anchor, movedBackTo } = waiting;
    // Fetched before the seek to the anchor: it says nothing of where the partition reads now.
    if (batch.isStale()) return undefined;
    let judged = judgeReadAtAnchor(anchor, batch.messages[0]!);
    // Read below the anchor twice: the client cannot read there (the anchor lies past the log's
    // end, so the log is not the one it was taken from); seeking again would loop (attack 17).
    if (judged === 'seek-again' && readBelowAnchor.get(progress) === batch.messages[0]!.offset) judged = 'new-log';
    if (judged === 'seek-again') {
      options.consumer().seek({ topic: batch.topic, partition: batch.partition, offset: anchor.offset });
      readBelowAnchor.set(progress, batch.messages[0]!.offset);
      return undefined;
    }
    // Past the anchor proves nothing when the group's commit moved back as well (a control
    // record at the anchor's offset of a new log): read from that commit as from a new log.
    if (judged === 'moved-on' && movedBackTo !== undefined) judged = 'new-log';
    let from = movedBackTo ?? 0n;
    if (judged === 'moved-on') {
      const moved = await movedOnFrom(batch, anchor);
      // Fetched before a seek made meanwhile: judged again at the next batch, nothing forgotten.
      if (batch.isStale()) return undefined;
      if (moved !== undefined) [judged, from] = ['new-log', moved];
    }
    // Sought first: refused, the batch is handed out again and judged again, nothing forgotten (attack 18).
    if (judged === 'new-log') options.consumer().seek({ topic: batch.topic, partition: batch.partition, offset: from.toString() });
    resumedAtAnchor.delete(progress);
    readBelowAnchor.delete(progress);
    if (judged === 'new-log') {
      startOver(progress);
      partitions.delete(partitionId(batch));
      return undefined;
    }
    // The same log: what the paused partition acknowledged may be committed now.
    options.commits.allow(progress.topic, progress.partition);
    options.commits.markProgress(progress)?.catch(options.onCommitError);
    return judged === 'anchor' ? batch.messages.slice(1) : batch.messages;
  }

  /**
   * A partition read past its anchor proves the same log only when the log no longer has the
   * anchor's offset: retention moved the log start past it. A log that starts at or below it
   * and skips it is a new log whose record there is never handed out (a transaction's control
   * record, an aborted record: found by attack 17), or the same log compacted: either way it
   * is read again, from the group's commit when it lies between the log start and the anchor
   * (a compacted log runs again only what was not committed), else from the log start, and
   * nothing read past is taken as done. Undefined: the same log, read on: also when the group's
   * commit is this member's own (its stamp: a recreated topic's commits go with it), and when
   * the port cannot read the log start or the group's commit, or a read is refused (as before
   * this check). No commit at all (a recreated topic) reads -1: from the log start.
   */
  async function movedOnFrom(batch: EachBatchPayload, anchor: PortMessage): Promise<bigint | undefined> {
    const start = await readLogStart(options.consumer(), batch.topic, batch.partition);
    if (start === undefined || start > BigInt(anchor.offset)) return undefined;
    const read = await groupCommitOf(options.consumer(), batch, options.clock ?? systemClock);
    // Not read (the coordinator away past the read's timeout): it tells nothing, and a compacted
    // log read again from its start would run its whole history again (found by attack 23).
    if (read === undefined || options.commits.isOwnCommit(batch.topic, batch.partition, read.offset, read.metadata)) return undefined;
    return read.offset >= start && read.offset <= BigInt(anchor.offset) ? read.offset : start;
  }

  async function publishInBackground(progress: PartitionProgress, record: ConsumedRecord, pending: PendingPublish, failure: RoutedFailure): Promise<void> {
    let published: Published;
    try {
      published = await options.records.publish(record, failure, () => pending.abandoned, () => holdAt(progress, pending));
    } catch (error) {
      // Cut short by stop() or abandoned: the record stays uncommitted (or runs again).
      // Anything else is a bug; the partition's next record throws it to the client, and
      // the commit never passes this record.
      if (!(error instanceof StopRequested) && !pending.abandoned) failures.set(progress, error);
      progress.release();
      return;
    }
    progress.acknowledged(pending);
    options.records.routed(record, published.failure);
    // Paused for a hold, the committer withholds the partition until its log is judged (holdPaused).
    if (progress.dropped || pending.abandoned) return;
    options.commits.markProgress(progress)?.catch(options.onCommitError);
  }

  /**
   * The commit window is full (`maxRecords` records done and not committed): after the
   * commits that make room, a partition whose unacknowledged publishes hold the rest takes
   * its next record only once one is acknowledged. Records behind a slow publish count
   * toward the duplicate bound like any other: a crash runs them again.
   */
  async function makeRoom(progress: PartitionProgress, commit: Promise<void> | undefined): Promise<void> {
    await commit;
    while (options.commits.holdsBack(progress) && !options.stopping() && !progress.dropped && !failures.has(progress)) {
      await progress.waitForAcknowledgement();
      await options.commits.markProgress(progress);
    }
  }

  /** Each partition's wait for room in flight (roomBy). */
  const makingRoom = new WeakMap<PartitionProgress, Promise<void>>();

  /**
   * Whether the window has room for the partition's next record, waiting for it until `by`
   * at most. Past it the batch ends and the client fetches the rest again: a wait inside the
   * batch keeps the client's loop from serving a rebalance (the Confluent client serves one
   * only when it fetches), and after a broker outage the commits that would make room are
   * refused until this member rejoins: waiting on, it never did (seen on the broker: the
   * group's commits not shown for minutes after the broker came back). The wait goes on in
   * the background; the next batch waits for the same room before it takes a record.
   */
  async function roomBy(progress: PartitionProgress, commit: Promise<void> | undefined, by: number): Promise<boolean> {
    if (commit === undefined && !options.commits.holdsBack(progress)) return true;
    // One wait per partition: the next batch waits again for the one an earlier batch left.
    let made = makingRoom.get(progress);
    if (made === undefined) {
      made = makeRoom(progress, commit).finally(() => makingRoom.delete(progress));
      made.catch(options.onCommitError);
      makingRoom.set(progress, made);
    }
    return settlesWithin(options.clock ?? systemClock, made, by - options.now());
  }

  /**
   * A publish is held: its partition takes no later record, and is paused at once, not at its
   * next record: with none yet, the client read on, and a topic created again meanwhile had its
   * new log read past its start (found by attack 16).
   */
  function holdAt(progress: PartitionProgress, pending: PendingPublish): void {
    progress.hold(pending);
    if (!heldPaused.has(progress) && !progress.dropped && !options.stopping()) holdPaused(progress);
  }

  /**
   * Pauses a partition whose publish is held until it is acknowledged (the operator raised
   * the limit), then reads it on from the first record not taken. A rebalance or stop()
   * ends the wait: the partition is read again from its commit by whoever owns it.
   */
  function holdPaused(progress: PartitionProgress): void {
    options.consumer().pause([{ topic: progress.topic, partitions: [progress.partition] }]);
    heldPaused.add(progress);
    resumeOwed.delete(progress);
    options.commits.withhold(progress.topic, progress.partition);
    const waited = (async () => {
      while (progress.holding && !options.stopping() && !progress.dropped && !failures.has(progress)) await progress.waitForAcknowledgement();
      // A rebalance resumed it (forget()); stop() leaves it paused for the next run.
      if (options.stopping() || progress.dropped) return;
      const from = await resumeOffsetAfterHold(progress);
      const anchor = lastTaken.get(progress);
      if (anchor !== undefined) {
        // The anchor judges first: the very record there proves the same log, whatever the
        // group's commit says (a commit moved back to a previous run's: attack 18).
        resumedAtAnchor.set(progress, { anchor, ...(from === undefined ? {} : { movedBackTo: from }) });
        return resumeHeld(progress, BigInt(anchor.offset));
      }
      if (from !== undefined) {
        // The group's commit moved back below what the broker acknowledged to this member: read
        // from it as from a new log, nothing read past as finished (a new log's first record
        // need not be at 0: found by attack 17). A lost commit of another member's runs again.
        await resumeHeld(progress, from);
        if (!progress.dropped) {
          startOver(progress);
          partitions.delete(partitionId(progress));
        }
        return;
      }
      options.commits.allow(progress.topic, progress.partition);
      return resumeHeld(progress, progress.nextOffset);
    })();
    options.track(waited);
  }

  /**
   * Where a partition a held publish paused reads on from: the first record not taken, unless
   * the group's commit is now below what the broker acknowledged to this member and is not this
   * member's own (its stamp). A topic deleted and created again with no rebalance takes its
   * commits with it, and the old log's next offset names a record of the new log, past its
   * first ones (found by attack 15: they never ran): then from the group's commit, or from 0
   * when there is none, and a read from 0 below an acknowledged commit is a new log
   * (isNewLog). A broker that lost a later commit of another member's shows the same: reading
   * from its commit runs records again, never skips one (attack 16: reading from 0 ran the
   * whole partition again). An unread commit says nothing. Undefined when the commit says
   * nothing: the partition is then read again from its last record taken, which is checked
   * (readAtAnchor; with no commit acknowledged, as when the held record is the log's first,
   * only the record can tell).
   */
  async function resumeOffsetAfterHold(progress: PartitionProgress): Promise<bigint | undefined> {
    const acknowledged = options.commits.acknowledgedOffset(progress.topic, progress.partition);
    if (acknowledged === undefined || acknowledged === 0n) return undefined;
    const read = await groupCommitOf(options.consumer(), progress, options.clock ?? systemClock);
    if (read === undefined || read.offset >= acknowledged || options.commits.isOwnCommit(progress.topic, progress.partition, read.offset, read.metadata)) return undefined;
    return read.offset < 0n ? 0n : read.offset;
  }

  /**
   * Resumes a partition a held publish paused, from `from` when given (the first record not
   * taken), tried again every RESUME_RETRY_MS while the client refuses, until stop().
   */
  async function resumeHeld(progress: PartitionProgress, from?: bigint, waits: Set<PartitionProgress> = heldPaused): Promise<void> {
    const clock = options.clock ?? systemClock;
    while (waits.has(progress) && !options.stopping()) {
      try {
        if (from !== undefined && !progress.dropped) options.consumer().seek({ topic: progress.topic, partition: progress.partition, offset: from.toString() });
        options.consumer().resume([{ topic: progress.topic, partitions: [progress.partition] }]);
        waits.delete(progress);
      } catch {
        await clock.sleep(RESUME_RETRY_MS);
      }
    }
  }

  /** A publish failed for a reason other than stop: thrown once, to the client. */
  function throwFailure(progress: PartitionProgress): void {
    if (!failures.has(progress)) return;
    const error = failures.get(progress);
    failures.delete(progress);
    throw error;
  }

  /**
   * Whether the batch names another topic id than its partition was read under (the topic was
   * deleted and created again) and is to be read again from the new log's start: what was
   * finished, held or in flight in the old log says nothing of the new one (no anchor, commit
   * or offset can tell a new log whose first records are never handed out: attack 17). With no
   * rebalance since, the client reads on from the old log's position, past the new log's first
   * records: sought to its start. After a rebalance it is read from the group's commit, which
   * the client may not have read from (the Confluent adapter seeks a topic created again to its
   * start): none (the old one went with the topic) reads from the start, and so does this
   * member's own commit of the old log, sent onto the new one; another member's commit of the
   * new log is read from, so nothing it ran runs again.
   */
  async function readNewLogById(batch: EachBatchPayload): Promise<boolean> {
    const id = partitionId(batch);
    const progress = partitions.get(id);
    // Judged first, taken once the seek below is done: refused, the batch handed out again is judged again (attack 18's class).
    if (options.logIds?.verdict(batch.topic, batch.partition, batch.topicId) !== 'new-log' || progress === undefined) {
      options.logIds?.seen(batch.topic, batch.partition, batch.topicId);
      return false;
    }
    const rebalanced = progress.dropped;
    const read = rebalanced ? await groupCommitOf(options.consumer(), batch, options.clock ?? systemClock) : undefined;
    // Asked before startOver, which makes the old log's stamp another's.
    const ownOldCommit = read !== undefined && options.commits.isOwnCommit(batch.topic, batch.partition, read.offset, read.metadata);
    // Where the new log is read from: its start, or another member's commit of it (none read: where the client reads).
    const from = !rebalanced || ownOldCommit || (read !== undefined && read.offset < 0n) ? 0n : read?.offset;
    const seek = from !== undefined && BigInt(batch.messages[0]!.offset) !== from;
    // Sought before anything is forgotten: a refused seek throws out of the batch with the old log's state and id as they were.
    // 0 below the log start (retention): every client resets the fetch to the earliest offset.
    if (seek) options.consumer().seek({ topic: batch.topic, partition: batch.partition, offset: from.toString() });
    options.logIds.seen(batch.topic, batch.partition, batch.topicId);
    startOver(progress);
    partitions.delete(id);
    // Paused for a hold of the old log, whose wait now ends without resuming it: resumed here, as a rebalance does.
    if (heldPaused.delete(progress)) {
      resumeOwed.add(progress);
      options.track(resumeHeld(progress, undefined, resumeOwed));
    }
    return seek;
  }

  async function onBatch(batch: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    if (batch.messages.length === 0) return;
    if (await readNewLogById(batch)) return;
    const messages = await readAtAnchor(batch);
    if (messages === undefined) return;
    /** The last record taken; resolved once when the batch ends (the Confluent client stores each resolve in librdkafka). */
    let taken: string | undefined = messages === batch.messages ? undefined : batch.messages[0]!.offset;
    if (messages.length === 0) {
      batch.resolveOffset(taken!);
      return;
    }
    const progress = await progressOf(batch, messages);
    if (progress === undefined) return;
    let last: PortMessage | undefined;
    const startedAt = options.now();
    let heartbeatAt = startedAt + HEARTBEAT_EVERY_MS;
    const endBy = startedAt + BATCH_BUDGET_MS;
    let staleCheckAt = -Infinity;
    try {
      for (const message of messages) {
        if (options.stopping() || progress.dropped) break;
        const now = options.now();
        if (now >= staleCheckAt) {
          if (batch.isStale()) break;
          staleCheckAt = now + STALE_CHECK_EVERY_MS;
        }
        if (now >= heartbeatAt) {
          // Throws when the group rebalances: the batch ends here, as kafkajs's own loop does.
          await batch.heartbeat();
          heartbeatAt = options.now() + HEARTBEAT_EVERY_MS;
        }
        if (now >= endBy) break;
        // No record is taken while the window is full (the duplicate bound), nor is the batch held past its budget waiting.
        const room = options.commits.room();
        if (room !== undefined || options.commits.holdsBack(progress)) {
          if (!(await roomBy(progress, room, endBy))) break;
          // The wait may have outlived the batch: stop() began, a rebalance took the partition, a seek.
          if (options.stopping() || progress.dropped || batch.isStale()) break;
        }
        // A record whose copy even the DLQ refuses as too large holds the partition: taking the
        // next ones would run them again after every restart, as the commit cannot pass it. It
        // waits paused, not here: a batch waiting would keep one of the client's slots of
        // partitions in hand, and other partitions would wait for it.
        // A publish that failed (a bug) is thrown first: held or not, it must not stay silent.
        throwFailure(progress);
        if (progress.holding) {
          if (!heldPaused.has(progress)) holdPaused(progress);
          break;
        }
        const record: ConsumedRecord = { topic, partition, message, heartbeat: batch.heartbeat };
        const offset = BigInt(message.offset);
        let failure: RoutedFailure | undefined;
        try {
          await options.records.handler(record);
        } catch (error) {
          failure = await options.records.afterFailure(record, error);
        }
        if (failure === undefined) {
          progress.finish(offset);
          options.records.succeededOnMain(record);
        } else {
          const pending = progress.publishing(offset);
          options.track(publishInBackground(progress, record, pending, failure));
          // A held publish ends the wait: the partition then waits paused, out of the client's slot (found by attack 17).
          while (progress.inFlight >= options.maxInFlight && !options.stopping() && !progress.dropped && !failures.has(progress) && !progress.holding) await progress.waitForAcknowledgement();
        }
        taken = message.offset;
        last = message;
        const commit = options.commits.markProgress(progress);
        if (commit && !(await roomBy(progress, commit, endBy))) break;
      }
    } finally {
      // Once per batch, not per record: a hold's resume reads it only after the batch ended.
      if (last !== undefined) lastTaken.set(progress, last);
      if (taken !== undefined && !batch.isStale()) batch.resolveOffset(taken);
    }
    if (options.stopping()) options.consumer().pause([{ topic, partitions: [partition] }]);
  }

  return {
    onBatch,
    forget() {
      // Kept, not cleared: a client may resume a partition past publishes it gave up here.
      for (const progress of partitions.values()) progress.revoke();
      resumedAtAnchor.clear();
      for (const progress of heldPaused) resumeOwed.add(progress);
      heldPaused.clear();
      for (const progress of resumeOwed) options.track(resumeHeld(progress, undefined, resumeOwed));
    },
    release() {
      for (const progress of partitions.values()) progress.release();
    },
  };
}
