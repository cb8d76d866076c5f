import type { RetryEventListener } from './events';
import { decodeRetryHeaders, parkStateHeaderValue, parkStateIdOf, retryIdOf } from './headers';
import { createParkingPatience } from './parking-patience';
import { createParkingCommits } from './parking-commits';
import { createParkingLogStart, LOG_START_CHECK_MS } from './parking-log-start';
import { createParkingHoldExpiry } from './parking-hold-expiry';
import { readLogStart } from './log-start';
import { createParkingSeekBack } from './parking-seek-back';
import { refusedAsTooLarge } from './metadata-too-large';
import { committedOffsetOf, keyHash, newParkStateId, readParkState, releaseHold, writtenUnderAnotherState } from './park-state';
import type { ParkState } from './park-state';
import type { ConsumerPort, TopicPartitionOffset } from './port';
import { createHoldClocks } from './hold-clocks';
import { createSeekUntilRead } from './seek-until-read';
import { createRanAwaitingCommit } from './ran-awaiting-commit';
import { PublishHeld } from './record-handler';
import { forgetBelowGroupCommits, ranBefore, withRun } from './ran-unjudged';
import type { HandleOutcome } from './record-handler';
import type { ConsumedRecord } from './router';
import { BUDGET_RETRY_AFTER_COMMITS, budgetedBytes, heldBytes, ParkingBudget } from './parking-budget';
import type { PartitionParking } from './partition-parking';
import { shedToFit } from './shed-park-state';
import { keyWaits, oldestMissing, oldestOf, parkedMissingBetween, roomMayCome, withoutParked } from './parked-records';
import { holdOffsetOf, originalOffsetOf, retryIdTakenBy, unheldCopyId, unproven } from './tier-copy-judgement';
import { judgeTierRecord } from './tier-record-verdict';
import { doneBeforeLoad, tierHandledOf } from './tier-position';
import { encodeTierCommit } from './tier-commit-metadata';
import { agreedStateId } from './tier-commit-state-id';
import type { LogIds } from './log-ids';
import { createTierTurns, runsBeforeParked } from './tier-turns';
import type { TierCommit } from './tier-turns';
import type { TierTurns } from './tier-turns';

export interface KeyParkingOptions {
  readonly mainTopic: string;
  /** The tiers, co-partitioned with the main topic: their commits of p keep p's state id too (tier-commit-state-id.ts). */
  readonly tierTopics: readonly string[];
  /** The one consumer that reads the main topic and the tiers, co-partitioned. */
  readonly consumer: () => ConsumerPort;
  /** Runs the handler (in-place retries, routing) and says where the record went; its copy carries `parkState`. */
  readonly handle: (record: ConsumedRecord, parked: boolean, parkState: string | undefined) => Promise<HandleOutcome>;
  readonly emit: RetryEventListener;
  /**
   * Most bytes of commit metadata the state of one partition may take (the broker's
   * `offset.metadata.max.bytes`). Lowered when the broker refuses a commit as too large.
   */
  readonly budgetBytes: number;
  /** The offset that marks a record done, for a stale tier copy committed without running. */
  readonly commitOffsetFor: (record: ConsumedRecord) => TopicPartitionOffset;
  /**
   * Longest a key stays held: past it, its tier record can no longer arrive (longer than the
   * path through every tier plus the tiers' retention), so the hold is released.
   */
  readonly holdExpiryMs: number;
  readonly now: () => number;
  /** The topic id each partition was last read under, where the port names ids (shared with the tier pipeline). */
  readonly logIds?: LogIds;
  /** Runs `work` after `ms` (nothing once the consumer stops); returns a cancel. */
  readonly setTimer: (ms: number, work: () => void) => () => void;
  /** Runs `work` again shortly (a refused pause or resume is tried again); nothing once the consumer stops. */
  readonly retryLater: (work: () => void) => void;
  /** Work a timer started, which may run the handler: stop() waits for it, within the drain deadline. */
  readonly track?: (work: Promise<void>) => void;
  /** Waits `ms` (rejects once the consumer stops): the pause before an operation of a partition whose last ones failed. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Park-by-key for one consumer: its keys in retry and their parked records, durable in the group's commits. */
export interface KeyParking {
  /** Handles, parks or skips a main-topic record, then commits it with the partition's state. */
  onMainRecord(record: ConsumedRecord): Promise<void>;
  /**
   * A due tier record: runs it (`handle`) only if it is its key's current retry (its
   * original offset is the key's hold), else commits it unhandled as a stale copy; if its
   * key's retry ended, releases the key and runs its parked records first. A record replayed
   * from the DLQ is not a copy, nor is one from before a lost state or one without a readable
   * original offset proven one: it runs if its key is free and the state has room for the
   * hold it may take, else waits its turn (behind the key's hold and parked records, or for
   * room). Under the same lock as the main partition's records, so a tier record and a drain
   * never overlap. A record held (the DLQ refused even its trimmed copy; `handle` rejects with
   * PublishHeld) changes nothing: its tier partition waits at it and the key stays held. Read
   * again (`held`), it only goes to the DLQ, so it runs whatever its key's state: a hold that
   * expired meanwhile makes it no stale copy to drop.
   */
  onTierRecord(record: ConsumedRecord, handle: (parkState?: string) => Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }>, held?: boolean): Promise<void>;
  /** After a rebalance: the state is read again from the commits of whatever partitions come back. */
  forget(): void;
  /**
   * A tier partition's topic was created again (told by its topic id): its next record read is
   * of the new log, whatever its offset, and what the old log's commits kept of it says nothing.
   */
  tierLogRecreated(topic: string, partition: number): void;
}

/** The wait before an operation of a partition whose last one failed, doubled after each failure in a row up to PACED_MAX_MS. */
const PACED_FIRST_MS = 100;
const PACED_MAX_MS = 5_000;

/** The offset kafkajs commits when it resets a partition whose fetch fell out of range, reading from the earliest. */
const KAFKAJS_EARLIEST = '-2';

/**
 * Durable park-by-key (R15). The state of main partition p (keys in retry, parked
 * offsets, the read position) lives in the metadata of the group's commit of p, whose
 * offset is the oldest parked record. Main and tier partitions p belong to one member,
 * so p's state has one writer; releasing a key commits the main state, then the tier
 * record. After a restart, a rebalance or a failed operation, p is read
 * again from the oldest parked record; the state says which records to skip, which to
 * park again. A record delivered twice is skipped or parked once.
 */
export function createKeyParking(options: KeyParkingOptions): KeyParking {
  const { mainTopic, emit } = options;
  const partitions = new Map<number, PartitionParking>();
  const locks = new Map<number, Promise<unknown>>();
  /**
   * What the client is known to do with each main partition this parking paused or resumed
   * (none: running, as the client starts it). Unknown after a refused call, and for a paused
   * one after a rebalance (kafkajs keeps pauses across a rebalance, its restart and the
   * Confluent client drop them): reconcile() then calls again whatever it derives, where a
   * stale "paused" would skip the pause a partition at its budget needs, and every record of
   * it would be sought back to itself and read again at once, for as long as the key is held.
   */
  const clientPause = new Map<number, 'paused' | 'running' | 'unknown'>();
  /** Main partitions read again from offset 0 under a loaded state: the next load begins them from nothing. */
  const newLogs = new Set<number>();
  /** Tier partitions (`topic\0partition`) told to be of a new log, until their next record is read. */
  const tierLogsRecreated = new Set<string>();
  /** Replayed tier records waiting for their key's turn, of this generation; they hold back their tier partitions' commits. */
  let turns = createTierTurns();
  let generation = 0;
  const budget = new ParkingBudget(options.budgetBytes, mainTopic, emit);
  /**
   * Seeks of each main partition by this parking. A main record delivered before the latest
   * was fetched before it: not taken, as the seek reads it again (nothing below a seek's
   * offset waits: it is handled, or parked and in memory).
   */
  const seeks = new Map<number, number>();
  /** The generation each main partition's topic id was last taken in (LogIds): another id is a new log only within it. */
  const idTakenIn = new Map<number, number>();
  function takeId(record: ConsumedRecord): void {
    if (options.logIds?.seen(mainTopic, record.partition, record.topicId) !== 'unknown') idTakenIn.set(record.partition, generation);
  }
  function seekMain(partition: number, offset: bigint): void {
    options.consumer().seek({ topic: mainTopic, partition, offset: offset.toString() });
    seeks.set(partition, (seeks.get(partition) ?? 0) + 1);
    const parking = partitions.get(partition);
    if (parking) {
      parking.next = offset;
      parking.soughtSinceTaken = true;
    }
  }

  /** Main records that ran, whose state commit was refused: taken again under the same state, they do not run again. */
  const ranAwaitingCommit = createRanAwaitingCommit();
  /** Seeks made again until a record of the partition is read (seek-until-read.ts). */
  const untilRead = createSeekUntilRead({ seek: seekMain, setTimer: options.setTimer, now: options.now, generation: () => generation });
  /** Seeks p to `offset` until a record of p is read, while `parking` is p's state and p is not paused here (its resume seeks again). */
  const seekMainUntilRead = (partition: number, parking: PartitionParking, offset: bigint) => untilRead.seekUntilRead(partition, offset, stillReading(partition, parking));
  const stillReading = (partition: number, parking: PartitionParking) => () => partitions.get(partition) === parking && clientPause.get(partition) !== 'paused';

  /**
   * One operation per main partition at a time; a failed one drops the state, so the next
   * reads it anew. Whatever happened, the partition's pause is derived again from its
   * state afterwards: no event has to remember to resume it.
   */
  function locked(partition: number, work: () => Promise<void>, heartbeat?: () => Promise<void>): Promise<void> {
    const run = (locks.get(partition) ?? Promise.resolve())
      .catch(() => {})
      .then(() => paced(partition))
      .then(() => {
        patience.begin(partition, heartbeat);
        return work();
      });
    const guarded = run.then(
      () => {
        failedInARow.delete(partition);
        reconcile(partition);
      },
      (error: unknown) => {
        failedInARow.set(partition, (failedInARow.get(partition) ?? 0) + 1);
        // The tier records it ran wait their turn again: what their run changed is read anew.
        partitions.get(partition)?.turns.restore(partition);
        partitions.delete(partition);
        reconcile(partition);
        throw error;
      },
    );
    locks.set(partition, guarded);
    return guarded;
  }

  /** What each partition's commits may wait out, and over which group commits (parking-patience.ts). */
  const patience = createParkingPatience({ mainTopic, consumer: options.consumer, now: options.now, setTimer: options.setTimer, emit, ...(options.sleep === undefined ? {} : { sleep: options.sleep }) });

  /** Operations of each main partition that failed since its last one that did not. */
  const failedInARow = new Map<number, number>();

  /**
   * Waits before an operation of a partition whose last ones failed, longer after each (up to
   * PACED_MAX_MS): a failed operation hands its record back to the client, which delivers it
   * again at once (the Confluent client; kafkajs waits a little), so through a coordinator
   * outage the handler ran once per refused commit, as fast as they came (found by attack 32).
   */
  async function paced(partition: number): Promise<void> {
    const failed = failedInARow.get(partition) ?? 0;
    if (failed > 0 && options.sleep !== undefined) await options.sleep(Math.min(PACED_MAX_MS, PACED_FIRST_MS * 2 ** (failed - 1)));
  }

  /**
   * A main partition is paused exactly when its state is loaded, at the budget, and every
   * parked record is in memory. At the budget with a parked record not yet read again (after
   * a reload), the partition must read: only that read brings the record back, and without
   * it the key's release could never run it and shrink the state.
   */
  function reconcile(partition: number): void {
    const parking = partitions.get(partition);
    const wanted = parking !== undefined && overBudget(parking) && oldestMissing(parking) === undefined;
    if ((clientPause.get(partition) ?? 'running') === (wanted ? 'paused' : 'running')) return;
    try {
      if (wanted) options.consumer().pause([{ topic: mainTopic, partitions: [partition] }]);
      else options.consumer().resume([{ topic: mainTopic, partitions: [partition] }]);
      // Resumed where the state says: the record declined at the budget was sought back to, and a
      // client that dropped that seek would read on past it, with nothing after it to tell.
      if (!wanted && parking !== undefined) {
        // A seek back confirmed while paused counts from the resume: its 10 s ran out while nothing was read (review 51).
        parking.soughtBack = undefined;
        seekMainUntilRead(partition, parking, oldestMissing(parking) ?? parking.state.position);
      }
    } catch {
      // Refused (the client is rejoining, say): derive it again shortly, as nothing else may
      // come for this partition. A rejoin's forget() starts over anyway.
      clientPause.set(partition, 'unknown');
      options.retryLater(() => reconcile(partition));
      return;
    }
    clientPause.set(partition, wanted ? 'paused' : 'running');
    if (wanted) emit({ type: 'parking-full', topic: mainTopic, partition, keys: parking!.state.held.size, parked: parking!.state.parked.size });
  }

  /** p's state, loaded from the group's commit of p unless in memory. `byMainRecord`: a main record of p brought the load (the client reads p there). */
  async function load(partition: number, byMainRecord = false): Promise<PartitionParking> {
    const loaded = partitions.get(partition);
    if (loaded) return loaded;
    const loadedIn = generation;
    const turnsOfGeneration = turns;
    const [committed] = await options.consumer().committed(mainTopic, [partition]);
    patience.stored(partition, { offset: committed?.offset ?? '-1', metadata: committed?.metadata ?? '' });
    // -1: nothing committed yet. A new log (the next record rule) begins from nothing whatever
    // the group's commit says: that commit may be this member's old state, committed onto it.
    const newLog = newLogs.delete(partition);
    const stored = committed && /^\d+$/.test(committed.offset) && !newLog ? BigInt(committed.offset) : !newLog && committed?.offset === KAFKAJS_EARLIEST ? await logStartOf(partition) : undefined;
    const asStored = readParkState(stored, committed?.metadata);
    const offset = asStored.lost ? await lostMarkOf(partition, stored!) : stored;
    const { state: read, lost, legacy } = offset === stored ? asStored : readParkState(offset, committed?.metadata);
    // A state an earlier release wrote (one that reads ours as lost, in a rolling upgrade) takes
    // an id as well: without it, a main topic recreated later would have the new state judge
    // this one's retries as its own, and skip them as stale. (One of ours without an id had it
    // dropped for the budget, which would drop a new one too.)
    const takesId = offset === undefined || lost !== undefined || (legacy === true && read.id === undefined);
    // A lost state takes back the id the tiers' commits of p keep, when they agree on one and
    // the lost commit is not below the main commit they name (a log moved back: recreated, or
    // reset to earlier offsets, whose copies this state cannot tell from its own), nor at 0:
    // a log committed at 0 handled none of its records, so no tier record is its own.
    const tierCommits = await tierCommitsOf(partition);
    forgetBelowGroupCommits(read, options.tierTopics, tierCommits);
    const agreed = lost === undefined ? undefined : agreedStateId(tierCommits.map((c) => c.metadata));
    // Judged on the group's commit, not on a loss moved to the log start (lostMarkOf): a
    // commit at 0 past which retention ran is still a log moved back (found by review 54).
    const kept = agreed !== undefined && stored !== undefined && stored > 0n && stored >= agreed.committed ? agreed.id : undefined;
    if (kept !== undefined) read.id = kept;
    else if (takesId) read.id ??= newParkStateId();
    if (lost) emit({ type: 'park-state-lost', topic: mainTopic, partition, offset: String(offset), metadata: lost });
    // Retention may have deleted parked records since (a consumer back from days down): given up
    // before the shed decides, so a give-up that makes the state larger than the broker keeps is
    // shed with it, not committed and refused at every load (found by attack 22).
    if (read.parked.size > 0) await giveUpStoredBelowLogStart(partition, read);
    const shed = loadedIn === generation ? await shedOverBudget(partition, read, () => loadedIn === generation) : undefined;
    const state = shed?.state ?? read;
    const tierCommitted = new Map(tierCommits.map((c) => [c.topic, BigInt(c.offset)]));
    const parking: PartitionParking = { state, records: new Map(), heldSince: new Map(), turns: turnsOfGeneration, tierHandled: tierHandledOf(partition, tierCommits, turnsOfGeneration), tierCommitted, tierRead: new Map(), soughtSinceTaken: true };
    // A rebalance while the state loaded: the operation is not taken, the next generation loads its own.
    if (loadedIn !== generation) return parking;
    turnsOfGeneration.loaded(partition, state.position, options.now());
    // Tier partitions p the group has no commit of, which this generation never committed nor
    // has records waiting on: met for the first time. Their first commit is made at the load
    // (stampTiers), so that a tier commit sent again after a refusal finds the group's commit
    // still the one it was sent over; with none there, a tier created again meanwhile (its
    // commits gone with it) could not be told from this one (attack 44: not waited out, the
    // replay it recorded ran again after its key's newer record; attack 41: waited out over
    // nothing, the old log's offset landed on a new log). A partition this generation knew is
    // not: a commit gone since says its log may be new (the tier created again), or may be a
    // read that answered none (an outage, kafkajs's -2 reset commit), and either way a stamp
    // would pass for continuity, putting back an offset a debt was owed over or a commit was
    // accepted at (the attack-15 property at seed 20, and attack 45: LOST).
    const firstMet = options.tierTopics.filter((topic) => !tierCommitted.has(topic) && turnsOfGeneration.lastAccepted(topic, partition) === undefined && turnsOfGeneration.waitingAt(topic, partition).length === 0);
    // A state begun from nothing, in place of a lost one, or an earlier release's, is committed
    // (with its id and, when lost, its mark) before it takes a record: so every tier record
    // written under its id follows a commit of it, and the next load reads that id back instead
    // of taking another (which would make this one's copies another state's). A refusal fails
    // the operation; the next one begins again.
    if (takesId) {
      // A state begun anew: the holds this member saw on p were another state's (attack 31).
      holdClocks.forget(partition);
      // A new id goes to the tiers' commits first: a state lost later takes it back from there.
      budget.fitId(state);
      if (kept === undefined && state.id !== undefined) await stampTiers(partition, state, { tierCommitted, topics: options.tierTopics, firstMet, turns: turnsOfGeneration });
      await commitState(partition, state, [stateCommit(partition, parking)]);
      if (loadedIn !== generation) return parking;
    }
    const unstamped = firstMet.filter((topic) => !tierCommitted.has(topic));
    if (unstamped.length > 0) {
      await stampTiers(partition, state, { tierCommitted, topics: unstamped, firstMet, turns: turnsOfGeneration });
      if (loadedIn !== generation) return parking;
    }
    partitions.set(partition, parking);
    // The log start is read again later: the read above may have been refused (an admin not
    // connected yet, a timeout: found by attack 21), and retention may take a parked record
    // between it and the re-read below; with no record past it nothing else would tell (the
    // retention property, seed 4201: the copy of such a record waited behind it for good).
    if (parking.state.parked.size > 0) checkLogStartLater(partition, parking);
    // Parked records are not in memory yet: read p again from the committed offset (the oldest
    // of them). After an assignment the client starts there anyway; after a failed operation or
    // an earlier seek it would not. With none parked, a main record that brought the load says
    // where the client reads (the position checks judge it); a tier record or a timer does not,
    // and a record declined at the position before (at the budget, its seek back dropped: the
    // Confluent client only logs a seek librdkafka refuses) was never read again when nothing
    // came past it (the dropped-seeks property): p is read from the position.
    if (parking.state.parked.size > 0 || !byMainRecord) seekMainUntilRead(partition, parking, committedOffsetOf(parking.state));
    watchHolds(partition, parking);
    // Keys the loaded state holds no more may have tier records waiting their turn: a shed freed
    // them (found by attack 11), or a failed operation's hold was never stored and its record waits
    // again (attack 13). No release of theirs is to come, so they run now, or wait for good with
    // their keys' records behind them.
    const ran: TierCommit[] = [];
    await drainFreeKeys(partition, parking, ran);
    if (ran.length > 0) await commit(partition, parking, [stateCommit(partition, parking), ...ran]);
    return parking;
  }

  /**
   * A stored state the broker no longer keeps (its limit lowered under it, found by attack 9)
   * is shed to one it keeps (shed-park-state.ts) and committed before a record runs: else every
   * commit of the partition is refused and its record runs again without end. Its records to
   * run again are read again before the commit: a failed seek then fails the operation while the
   * stored state is still over the budget, so the next load sheds and seeks again (committed
   * first, nothing would bring them back). A refusal as too large lowers the budget and sheds
   * the stored state again, here, so one shed runs no record before it fits.
   */
  async function shedOverBudget(partition: number, stored: ParkState, current: () => boolean): Promise<ReturnType<typeof shedToFit>> {
    // Only a state the broker refused, by name, at its size or less (found by attack 11): a
    // budget lowered by a guess (an outage on the Confluent client) or by configuration is
    // met by pausing at it, as the broker keeps the stored state and releases shrink it.
    // Measured as the budget measures (without the runs it records: ran-unjudged.ts), which a commit drops first (attack 27).
    const refusedAsIs = () => budget.refusedBytes !== undefined && budgetedBytes(stored) >= budget.refusedBytes;
    const shedAtBudget = () => (refusedAsIs() ? shedToFit((budget.fitId(stored), stored), budget.bytes) : undefined);
    let shed = shedAtBudget();
    if (shed === undefined) return undefined;
    if (shed.rerunTo > shed.state.position) seekMain(partition, shed.state.position);
    for (;;) {
      const tried = budget.bytes;
      // A rebalance meanwhile: the next generation loads, and sheds, its own.
      if (!current()) return undefined;
      try {
        await commitState(partition, shed.state, [stateCommit(partition, shed)]);
        break;
      } catch (error) {
        // Another failure, or a refusal that taught nothing: the operation fails, the next load begins again.
        if (!refusedAsTooLarge(error) || budget.bytes >= tried) throw error;
        shed = shedAtBudget() ?? shed;
      }
    }
    emit({ type: 'park-state-shed', topic: mainTopic, partition, offset: shed.state.position.toString(), rerunTo: shed.rerunTo.toString(), holdsDropped: shed.holdsDropped, budgetBytes: budget.bytes });
    return shed;
  }

  /** The group's commits of tier partitions p that exist (a tier never committed has none). */
  async function tierCommitsOf(partition: number): Promise<{ topic: string; offset: string; metadata?: string | null }[]> {
    const read = await Promise.all(options.tierTopics.map(async (topic) => ({ topic, committed: (await options.consumer().committed(topic, [partition]))[0] })));
    return read.flatMap(({ topic, committed }) => (committed && /^\d+$/.test(committed.offset) ? [{ topic, offset: committed.offset, metadata: committed.metadata }] : []));
  }

  /**
   * Writes the state's id (if it has one) into the commits of tier partitions p of `topics`, at
   * the offsets the group has (`tierCommitted`, as the load read them), or for a partition with
   * none at its log start (0 when the port cannot tell): one request, before the state with the
   * id is committed, so every state with an id has it kept in the tiers. The commits of
   * partitions met for the first time (`firstMet`) are noted in `tierCommitted` and as the
   * generation's last accepted commit of them (`turns`): what their next commits are sent over.
   */
  async function stampTiers(partition: number, state: ParkState, stamp: { tierCommitted: Map<string, bigint>; topics: readonly string[]; firstMet: readonly string[]; turns: TierTurns }): Promise<void> {
    const { tierCommitted, topics, firstMet, turns } = stamp;
    if (topics.length === 0) return;
    const offsets = new Map<string, bigint>();
    for (const topic of topics) offsets.set(topic, tierCommitted.get(topic) ?? (await readLogStart(options.consumer(), topic, partition)) ?? 0n);
    // The id alone: a position the commits kept is given up (its records are judged again, never skipped unrun).
    const metadata = encodeTierCommit(0n, { ...(state.id === undefined ? {} : { id: state.id }), mainCommitted: committedOffsetOf(state), waiting: [] });
    // As a state commit: a broker that keeps less metadata lowers the budget, and the id then goes (fitId).
    await commitState(partition, state, topics.map((topic) => ({ topic, partition, offset: offsets.get(topic)!.toString(), ...(metadata === undefined ? {} : { metadata }) })));
    for (const topic of firstMet.filter((t) => offsets.has(t))) {
      tierCommitted.set(topic, offsets.get(topic)!);
      turns.stamped(topic, partition, offsets.get(topic)!);
    }
  }

  /** The group generation this member is in, for the modules that set timers (a rebalance moves it). */
  const currentGeneration = () => generation;

  /** Whether `parking` is still p's loaded state: a rebalance or a failed operation drops it, and work begun on it then changes nothing. */
  const isCurrent = (partition: number, parking: PartitionParking): boolean => partitions.get(partition) === parking;

  /** When this member first saw each hold (hold-clocks.ts). */
  const holdClocks = createHoldClocks(options.now);

  /** The one writer of p's group commits (parking-commits.ts). */
  const { coveredNow, stateCommit, commit, commitState, ranUnjudged } = createParkingCommits({
    mainTopic,
    tierTopics: options.tierTopics,
    consumer: options.consumer,
    budget,
    patience,
    holdClocks,
    isCurrent,
  });

  /** Parked records retention took from the main topic, given up (parking-log-start.ts). */
  const logStart = createParkingLogStart({
    mainTopic,
    consumer: options.consumer,
    setTimer: options.setTimer,
    emit,
    isCurrent,
    generation: currentGeneration,
    onTimer,
    runFreed,
    seekMain,
  });
  const { logStartOf, lostMarkOf, checkLogStartLater, giveUpBelowLogStart, giveUpStoredBelowLogStart, giveUpDeleted } = logStart;

  /** Holds and their expiry timers (parking-hold-expiry.ts). */
  const holdExpiry = createParkingHoldExpiry({
    mainTopic,
    holdExpiryMs: options.holdExpiryMs,
    now: options.now,
    setTimer: options.setTimer,
    emit,
    holdClocks,
    isCurrent,
    generation: currentGeneration,
    onTimer,
    drain,
    afterReleases,
  });
  const { hold, watchHolds } = holdExpiry;

  /** The id the copy of a record this state may hold carries, fitted first: a copy must never carry an id its state then drops. */
  const idForCopies = (state: ParkState): string | undefined => (budget.fitId(state), state.id);

  const overBudget = ({ state }: PartitionParking) => budget.full(state);

  /**
   * Holds `hash` at `offset` for a record gone on to a tier, when holdFits() said so before it
   * ran; else the record's retry goes on unheld and the runtime says so, instead of taking a
   * hold every commit would refuse, running the record again forever. Its copy carries
   * NO_STATE_ID: no partition-wide mark is moved, so no other key's stale copies are unjudged
   * (a mark moved here did that: found by attack 11).
   */
  function holdOrSkip(record: ConsumedRecord, parking: PartitionParking, hash: string, offset: bigint, fits: boolean, retryId?: string): void {
    if (fits) return hold(record.partition, parking, hash, offset, retryId);
    // The record's own main-topic offset, not the hold's: a replay past the position holds short of its own (holdOffsetOf).
    const of = record.topic === mainTopic ? record.message.offset : (originalOffsetOf(record) ?? offset).toString();
    emit({ type: 'parking-hold-skipped', topic: mainTopic, partition: record.partition, offset: of, key: keyText(record), budgetBytes: budget.bytes, neededBytes: heldBytes(parking.state, hash, offset, retryId) });
  }

  /**
   * What a record's copy carries in PARK_STATE_HEADER: this state's id while its key may be
   * held, with the retry id of a replayed record's retry; else NO_STATE_ID (holdFits), with
   * the retry id too (unheldCopyId).
   */
  const copyIdFor = (state: ParkState, fits: boolean, retryId?: string): string | undefined => (fits ? parkStateHeaderValue(idForCopies(state), retryId) : unheldCopyId(retryId));

  /**
   * A timer's work on main partition p (a hold's expiry, a read of the log start), done on p's
   * state as it is when the timer fires, while this member owns p as it did when the timer was
   * set (`setIn`, the generation then). The state that set the timer may be gone: a failed
   * operation drops it, and the next one loads it again. On an idle partition no record comes to
   * load it, and the work was skipped as the old state's, or dropped as already asked for by it:
   * the partition waited for good (the retention property, seed 4201: a parked record deleted by
   * retention, its copy waiting behind it, never given up). So the state is loaded here if need
   * be, and work that fails is tried again after a while, as no client delivers a timer again.
   */
  function onTimer(partition: number, setIn: number, work: (parking: PartitionParking) => Promise<void>): void {
    if (generation !== setIn) return;
    const done = locked(partition, async () => {
      if (generation !== setIn) return;
      const parking = await load(partition);
      if (generation === setIn && isCurrent(partition, parking)) await work(parking);
    }).catch(() => {
      if (generation === setIn) options.setTimer(LOG_START_CHECK_MS, () => onTimer(partition, setIn, work));
    });
    // It may run the handler (a drain): stop() waits for it as for a record's work.
    options.track?.(done);
  }

  /**
   * Runs the key's parked records and waiting tier records in turn while the key is not held
   * and the next one has been read, each committed before the next (commitDrained) with the
   * tier commits gathered in `ran` so far.
   */
  async function drain(partition: number, parking: PartitionParking, hash: string, ran: TierCommit[]): Promise<void> {
    const { state, turns } = parking;
    // A rebalance during a record run here forgot this state: the partition is read again
    // from its commit, and the new generation's waiting records are not this state's to run.
    while (isCurrent(partition, parking) && !state.held.has(hash)) {
      const next = oldestOf([...state.parked].filter(([, h]) => h === hash).map(([offset]) => offset));
      const turn = turns.next(partition, hash);
      const turnFirst = turn !== undefined && runsBeforeParked(turn, next, next === undefined ? undefined : parking.records.get(next), turns.generationBegan(partition));
      if (turnFirst && turn.copyOf !== undefined && !unproven(state, turn.copyOf, hash, retryIdOf(turn.record.message.headers))) {
        // The copy of a parked record whose record ran again since (or is read again, past a
        // shed's position): stale. Given up (retention took it), its record is below the mark: it runs.
        emit({ type: 'stale-tier-record', record: turn.record, key: keyText(turn.record) });
        // Known done on its own log only: one read on a log since gone names nothing of the log now (attack 28).
        if (!turns.ofAnotherLog(turn)) turns.knownDone(turn.record);
        turns.done(partition, turn);
        if (!turns.ofAnotherLog(turn) && !(await tierMayHaveStartedOver(turns, turn.record))) ran.push(turns.commit(options.commitOffsetFor(turn.record)));
        continue;
      }
      if (turnFirst) {
        const retryId = retryIdTakenBy(turn.record);
        const foreign = writtenUnderAnotherState(state, parkStateIdOf(turn.record.message.headers));
        const holdAt = holdOffsetOf(state, foreign, originalOffsetOf(turn.record), retryId);
        // A run the state will name needs room for the name too (roomForRun).
        const room = turns.ofAnotherLog(turn)
          ? budget.roomForHold(parking.state, hash, holdAt, retryId, roomMayCome(parking))
          : budget.roomForRun(parking.state, withRun(parking.state, turn.record, options.tierTopics, coveredNow(parking)), hash, holdAt, retryId, roomMayCome(parking));
        if (room === 'wait') return; // waits for a release to make room, its key's parked records behind it
        emit({ type: 'unparked', record: turn.record, key: keyText(turn.record) });
        const fits = holdAt !== undefined && room === 'room' && budget.holdFits(state, hash, holdAt, retryId);
        const { outcome, commit } = await turn.handle(holdAt !== undefined ? copyIdFor(state, fits, retryId) : unheldCopyId(retryId));
        turns.done(partition, turn);
        if (!turns.ofAnotherLog(turn)) ranUnjudged(parking, turn.record);
        // One read on a log since gone (the tier recreated) commits nothing on the log now.
        if (!turns.ofAnotherLog(turn) && !(await tierMayHaveStartedOver(turns, turn.record))) ran.push(turns.commit(commit));
        if (outcome === 'tier' && holdAt !== undefined) holdOrSkip(turn.record, parking, hash, holdAt, fits, retryId);
        await commitDrained(partition, parking, ran);
        continue;
      }
      const record = next === undefined ? undefined : parking.records.get(next);
      if (next === undefined) return;
      if (!record) return checkLogStartLater(partition, parking); // read again soon, unless retention took it
      emit({ type: 'unparked', record, key: keyText(record) });
      const fits = budget.holdFits(withoutParked(state, next), hash, next);
      const outcome = await options.handle(record, true, copyIdFor(state, fits));
      state.parked.delete(next);
      parking.records.delete(next);
      if (outcome === 'tier') holdOrSkip(record, parking, hash, next, fits);
      await commitDrained(partition, parking, ran);
    }
  }

  /**
   * Whether the tier partition a waiting record was read from may have started over since (the
   * tier deleted and created again with no rebalance, its commits gone with it): the group's
   * commit of it is below the offset the broker stored with the last tier commit it accepted
   * from this generation, or there is none. A drain may run such a record before anything of
   * the new log is read, and its commit would put the old log's position on the new one, past
   * its records (found by attack 15). Then the record commits nothing: a later commit of the
   * partition passes it, or it runs again (never lost). A commit the broker lost in an outage
   * reads the same, and costs only that; nothing else of the partition changes on a guess
   * (attack 16: taking it for a new log freed the other waiting records' hold on the commit).
   * A refused read fails the operation, which commits nothing.
   */
  async function tierMayHaveStartedOver(turns: TierTurns, record: ConsumedRecord): Promise<boolean> {
    const stored = turns.lastAccepted(record.topic, record.partition);
    if (stored === undefined) return false;
    // No commit at all reads as -1: a deleted topic's commit at 0 went with it too.
    const [committed] = await options.consumer().committed(record.topic, [record.partition]);
    return committed !== undefined && /^-?\d+$/.test(committed.offset) && BigInt(committed.offset) < stored;
  }

  /**
   * Each record a drain runs is committed before the next runs, with the state (what the
   * release and the records so far changed) and the tier commits gathered in `ran` (taken out:
   * the caller commits what is left): park-by-key commits every record, and a queue of a key
   * run under one commit ran again whole after a crash before it, past the duplicate bound
   * (found by attack 13: replays waiting their turn are not bounded by the parking budget).
   */
  async function commitDrained(partition: number, parking: PartitionParking, ran: TierCommit[]): Promise<void> {
    await commit(partition, parking, [stateCommit(partition, parking), ...ran.splice(0)]);
  }

  /**
   * After anything that made room (a release, an expiry, parked records run, a load): runs the
   * waiting tier records of free keys (oldest first), as far as the room goes. A record that
   * waited for room only has no release of its own key to run it (found by the attack-12
   * property: a turn that waited for room while parked records of another key ran after a
   * reload was never run, its key's later tier records stuck behind it).
   */
  async function drainFreeKeys(partition: number, parking: PartitionParking, ran: TierCommit[]): Promise<void> {
    for (const hash of parking.turns.keys(partition)) if (!parking.state.held.has(hash)) await drain(partition, parking, hash, ran);
  }

  /** A key waits while it is held, has parked records or has a waiting tier record: the one check for main and tier records. */

  /** Seeks back that confirm what a record read past them says (parking-seek-back.ts). */
  const seekBack = createParkingSeekBack({ now: options.now, setTimer: options.setTimer, generation: currentGeneration, seekMain, onTimer, paused: (partition) => clientPause.get(partition) === 'paused' });
  const { soughtPast, soughtBackDone } = seekBack;

  /** Runs the parked and waiting records of keys a give-up freed, then commits (parking-log-start.ts). */
  async function runFreed(partition: number, parking: PartitionParking, keys: ReadonlySet<string>): Promise<void> {
    const ran: TierCommit[] = [];
    for (const hash of keys) await drain(partition, parking, hash, ran);
    await afterReleases(partition, parking, ran);
  }

  /** After keys were released and their records drained: free keys' waiting records run, then the state is committed with `ran`. */
  async function afterReleases(partition: number, parking: PartitionParking, ran: TierCommit[]): Promise<void> {
    await drainFreeKeys(partition, parking, ran);
    await commit(partition, parking, [stateCommit(partition, parking), ...ran]);
  }

  return {
    onMainRecord: (record) => {
      untilRead.delivered(record.partition);
      const fetchedAfter = seeks.get(record.partition) ?? 0;
      const fetchedIn = generation;
      const takenAgain = () => (seeks.get(record.partition) ?? 0) !== fetchedAfter || generation !== fetchedIn;
      return unlessTakenAgain(takenAgain, locked(record.partition, async () => {
        const { partition } = record;
        const parking = await load(partition, true);
        // Fetched before a seek or a rebalance, which read it again (both assignors are eager).
        // A seek the client dropped reads nothing again, and the state that made it may be gone
        // (a tier record's failed operation): p is sought until read unless that is under way.
        if (takenAgain()) {
          if (generation === fetchedIn) untilRead.ensureSeekUntilRead(partition, parking.next ?? committedOffsetOf(parking.state), stillReading(partition, parking));
          return;
        }
        const { state } = parking;
        const offset = BigInt(record.message.offset);
        const hash = keyHash(record.message.key);
        // Another topic id than p was read under in this generation: the main topic was created
        // again, and the client reads its new log on from the old position, past its first
        // records (the Confluent client), or from wherever its first record is (control records
        // before it). After a rebalance the group's commit may be another member's state of the
        // new log: judged as ever. The id is taken once the seek is done: a refused seek leaves
        // it to tell the record handed out again (attack 18's class).
        const newLogById = options.logIds?.verdict(mainTopic, partition, record.topicId) === 'new-log' && idTakenIn.get(partition) === generation;
        if (newLogById) {
          seekMain(partition, 0n);
          partitions.delete(partition);
          newLogs.add(partition);
          takeId(record);
          return;
        }
        takeId(record);
        if (parking.next !== undefined && offset < parking.next) {
          // Moved back under this state (found by attack 9: kafkajs answers a main topic deleted
          // and created again, with no rebalance, by reading the new log from 0): the state may be
          // another log's, whose position would skip the new records as handled. It is read anew
          // from the group's commit, and this record with it.
          partitions.delete(partition);
          // From offset 0: a new log (as the unordered path takes one), begun from nothing.
          if (offset === 0n) newLogs.add(partition);
          seekMain(partition, offset);
          return;
        }
        const readFrom = parking.next;
        parking.next = offset + 1n;
        // Before the read-in-order check, which may seek to the position, past the deleted records.
        if (readFrom !== undefined && parkedMissingBetween(parking, readFrom, offset).length > 0) await giveUpBelowLogStart(partition, parking);
        const gone = readFrom === undefined ? [] : parkedMissingBetween(parking, readFrom, offset);
        if (gone.length > 0) {
          // Still in the log by its start (compaction, or a record fetched before an earlier seek):
          // confirmed by a seek of its own first, as giving up a parked record still there would lose it.
          if (!soughtPast(partition, parking, 'gap', gone[0]!, offset)) return;
          await giveUpDeleted(partition, parking, gone, readFrom!, offset);
        } else soughtBackDone(parking, 'gap'); // nothing missing read past: a seek back to it took effect
        // A record past the state's position: the records between were never taken under this
        // state. The first record since a load may come so (they were read under a state since
        // lost, or a commit lost in an outage), and so may any record after a seek of p, when the
        // client reads on past a record this state did not take (every record not taken is
        // sought back to, and a seek the client drops, as the Confluent client only logs one
        // librdkafka refuses, reads nothing again). None of them may be taken as handled: read
        // them again from the position; a gap still there once the seek took effect is real
        // (transaction markers, compaction). Read in order since the last record taken, with no
        // seek between, the client's gap is the log's: taken without a seek, so a compacted or
        // transactional main topic is not read again at every hole.
        if (parking.soughtSinceTaken && offset > state.position && !soughtPast(partition, parking, 'position', state.position, offset)) return;
        soughtBackDone(parking, 'position');
        if (offset < state.position) {
          // Re-reading after a restart: run or keep the parked records, skip the handled ones.
          if (state.parked.get(offset) === undefined || parking.records.has(offset)) return;
          parking.records.set(offset, record);
          const ran: TierCommit[] = [];
          await drain(partition, parking, hash, ran);
          // The parked records it ran made room: tier records of free keys that waited for room run now.
          await afterReleases(partition, parking, ran);
          return;
        }
        if (overBudget(parking)) {
          // Not taken: read again from the oldest parked record not in memory, else from this
          // one (once resumed; reconcile() pauses the partition when nothing is missing).
          seekMain(partition, oldestMissing(parking) ?? offset);
          return;
        }
        // Keyless records have no order to keep: they never wait and never hold.
        const keyless = record.message.key === null;
        let ran: HandleOutcome | undefined;
        const waiting = !keyless && keyWaits(partition, parking, hash);
        if (waiting) {
          state.parked.set(offset, hash);
          parking.records.set(offset, record);
          emit({ type: 'parked', record, key: keyText(record) });
        } else {
          // Keyless records hold nothing, and their copies are never judged by a hold. A record
          // that ran under this state, its commit refused past the patience, does not run again.
          const fits = keyless || budget.holdFits(state, hash, offset);
          const outcome = ranAwaitingCommit.take(partition, record.message, state.id) ?? (await options.handle(record, false, copyIdFor(state, fits)));
          if (outcome === 'tier' && !keyless) holdOrSkip(record, parking, hash, offset, fits);
          ran = outcome;
        }
        state.position = offset + 1n;
        parking.soughtSinceTaken = false;
        try {
          await commit(partition, parking, [stateCommit(partition, parking)]);
        } catch (refused) {
          if (ran !== undefined) ranAwaitingCommit.remember(partition, record.message, state.id, ran);
          throw refused;
        }
      }, record.heartbeat));
    },

    onTierRecord: (record, handle, held = false) => {
      const fetchedIn = generation;
      const takenAgain = () => generation !== fetchedIn;
      // Tier partition p holds the failures of main partition p (a record keeps its partition).
      return unlessTakenAgain(takenAgain, locked(record.partition, async () => {
        const parking = await load(record.partition);
        // Fetched before a rebalance, which reads the partition again from its commit: taken
        // now, it could commit past a record of its partition that waited its turn. Checked
        // after the load, as the main records are: a rebalance while the state loads would
        // leave this record waiting its turn under the forgotten state, in the new
        // generation's turns, behind a hold that state no longer has: waiting forever, and
        // every later tier record of its key behind it.
        if (takenAgain()) return;
        if (tierLogsRecreated.delete(`${record.topic}\u0000${record.partition}`)) {
          parking.turns.logRecreated(record.topic, record.partition);
          parking.tierHandled.delete(record.topic);
          parking.tierRead.delete(record.topic);
        }
        parking.turns.read(record);
        if (doneBeforeLoad(parking, record)) {
          await commit(record.partition, parking, [parking.turns.commit(options.commitOffsetFor(record))]);
          return;
        }
        if (ranBefore(parking.state, record, options.tierTopics) || parking.turns.isKnownDone(record)) {
          // A record that ran unjudged under this state, or was judged done in this generation, read again before its tier's commit was stored.
          emit({ type: 'stale-tier-record', record, key: keyText(record) });
          await commit(record.partition, parking, [parking.turns.commit(options.commitOffsetFor(record))]);
          return;
        }
        const { state, turns } = parking;
        const verdict = judgeTierRecord({ parking, record, held, tierTopics: options.tierTopics, budget });
        if (verdict.kind === 'waits-behind-its-record') {
          // It waits right behind its record and is judged when its turn comes (drain).
          const { hash, original } = verdict;
          if (turns.wait(record.partition, { record, hash, behind: original + 1n, copyOf: original, handle })) emit({ type: 'parked', record, key: keyText(record) });
          // Its record not read again yet: retention may have taken it since the load.
          if (!parking.records.has(original)) checkLogStartLater(record.partition, parking);
          return;
        }
        if (verdict.kind === 'stale') {
          emit({ type: 'stale-tier-record', record, key: keyText(record) });
          turns.knownDone(record);
          await commit(record.partition, parking, [turns.commit(options.commitOffsetFor(record))]);
          return;
        }
        if (verdict.kind === 'waits-its-turn') {
          // Its tier partition's commit stays at it while it waits.
          const dueAt = decodeRetryHeaders(record.message.headers).dueAt;
          if (turns.wait(record.partition, { record, hash: verdict.hash, behind: verdict.behind, ...(dueAt === undefined ? {} : { dueAt }), handle })) emit({ type: 'parked', record, key: keyText(record) });
          return;
        }
        const { hash, keyless, current, holdAt, fits, retryId } = verdict;
        let ran: { outcome: HandleOutcome; commit: TopicPartitionOffset };
        try {
          ran = await handle(current || holdAt !== undefined ? copyIdFor(state, fits, retryId) : unheldCopyId(retryId));
        } catch (error) {
          if (error instanceof PublishHeld) return; // nothing committed, nothing changed: the record comes again
          throw error;
        }
        const done = turns.commit(ran.commit);
        if (keyless) {
          await commit(record.partition, parking, [done]);
          return;
        }
        if (!current) {
          // Not judged a copy (replayed, unproven, no readable original) while its key was free: if it
          // goes on to a later tier, it holds the key there, so newer records of the key wait for it.
          // Its run goes into the state, committed before its tier's commit (ran-unjudged.ts).
          if (ran.outcome === 'tier' && holdAt !== undefined) holdOrSkip(record, parking, hash, holdAt, fits, retryId);
          ranUnjudged(parking, record);
          await commit(record.partition, parking, [stateCommit(record.partition, parking), done]);
          return;
        }
        if (ran.outcome === 'tier') {
          await commit(record.partition, parking, [done]); // still in retry: the key stays held
          return;
        }
        releaseHold(state, hash);
        parking.heldSince.delete(hash);
        const drained: TierCommit[] = [];
        await drain(record.partition, parking, hash, drained);
        await drainFreeKeys(record.partition, parking, drained);
        watchHolds(record.partition, parking); // the next oldest hold's expiry, or no timer
        await commit(record.partition, parking, [stateCommit(record.partition, parking), ...drained, turns.commit(ran.commit)]);
      }, record.heartbeat));
    },

    forget() {
      generation++;
      partitions.clear();
      holdClocks.forget();
      logStart.forget(); // the timers set before are the old generation's: they do nothing
      seekBack.forget(); // the same
      untilRead.forget(); // the same
      newLogs.clear(); // read from the group's commits again, whoever committed them since
      tierLogsRecreated.clear(); // the same: a recreated tier's commits went with it, and the load finds none
      turns = createTierTurns();
      holdExpiry.forget();
      for (const [partition, pause] of [...clientPause]) {
        if (pause === 'running') continue;
        clientPause.set(partition, 'unknown');
        reconcile(partition);
      }
    },

    tierLogRecreated(topic, partition) {
      tierLogsRecreated.add(`${topic}\u0000${partition}`);
    },
  };
}

/**
 * The operation of a record a seek or a rebalance took again since it was fetched: its
 * failure is not the client's to react to. The Confluent client seeks back to a record
 * whose handler threw, and after a rebalance that seek would move the partition past
 * records it reads again from the commit (tier records that waited their turn, forgotten
 * by the rebalance): they would never come again. The seek or the rebalance already reads
 * this record again.
 */
function unlessTakenAgain(takenAgain: () => boolean, operation: Promise<void>): Promise<void> {
  return operation.catch((error: unknown) => {
    if (!takenAgain()) throw error;
  });
}

const keyText = (record: ConsumedRecord) => record.message.key?.toString('utf8') ?? '';

/** Re-exported: where the tests and the docs look for it. */
export { BUDGET_RETRY_AFTER_COMMITS };
