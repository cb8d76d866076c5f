import type { RetryEventListener } from './events';
import { KrtError } from './krt-error';
import { readLogStart as readLogStartOf } from './log-start';
import type { ParkState } from './park-state';
import { oldestMissing, parkedMissingBetween } from './parked-records';
import type { PartitionParking } from './partition-parking';
import type { ConsumerPort } from './port';

/** How long a free key waits for its next parked record to be read again before the log start is read again. */
export const LOG_START_CHECK_MS = 5_000;

export interface ParkingLogStartOptions {
  readonly mainTopic: string;
  readonly consumer: () => ConsumerPort;
  readonly setTimer: (ms: number, work: () => void) => () => void;
  readonly emit: RetryEventListener;
  /** Whether `parking` is still main partition p's loaded state. */
  readonly isCurrent: (partition: number, parking: PartitionParking) => boolean;
  /** The group generation this member is in (a rebalance moves it). */
  readonly generation: () => number;
  /** Runs `work` on p's state under p's lock, while the generation is still `setIn` (key-parking.ts onTimer). */
  readonly onTimer: (partition: number, setIn: number, work: (parking: PartitionParking) => Promise<void>) => void;
  /** Runs the parked records and waiting tier records of `keys`, freed by a give-up, and commits. */
  readonly runFreed: (partition: number, parking: PartitionParking, keys: ReadonlySet<string>) => Promise<void>;
  /** Seeks main partition p to `offset` (key-parking.ts seekMain). */
  readonly seekMain: (partition: number, offset: bigint) => void;
}

/**
 * Park-by-key against retention on the main topic: parked records below p's log start are
 * given up (said, their keys go on, their copies run unjudged) rather than waited for.
 */
export function createParkingLogStart({ mainTopic, consumer, setTimer, emit, isCurrent, generation, onTimer, runFreed, seekMain }: ParkingLogStartOptions) {
  /**
   * Main partition p's log start, or 0 when the port cannot tell. Read for a commit of -2:
   * kafkajs commits that (the earliest offset, with no metadata) when a fetch falls out of
   * range, retention having passed the group's commit, which erases the state. Read as a
   * state lost at the log start (event `park-state-lost`), not as a partition never
   * committed: the tier records written before then run unjudged, none skipped as stale.
   */
  async function logStartOf(partition: number): Promise<bigint> {
    return (await readLogStart(partition)) ?? 0n;
  }

  /** p's log start as the port reads it; undefined when it cannot tell or the read is refused. */
  const readLogStart = (partition: number): Promise<bigint | undefined> => readLogStartOf(consumer(), mainTopic, partition);

  /**
   * Where a state lost at commit `offset` is lost: at p's log start when retention deleted
   * records past the commit, else at the commit. The records between are never read again, so
   * copies of them are all that is left of them, and below the lost mark they run unjudged;
   * marked at the commit, they were judged by a hold "as their main record is read again" and
   * skipped as stale (found by review 52: lost). A port that cannot tell leaves the commit. A
   * refused read fails the load, which the next operation tries again: marked at the commit,
   * the mark would be committed and read back for good (found by review 54).
   */
  async function lostMarkOf(partition: number, offset: bigint): Promise<bigint> {
    if (consumer().logStartOffsets === undefined) return offset;
    const start = await readLogStart(partition);
    if (start === undefined) throw new KrtError(`the log start of ${mainTopic} partition ${partition} could not be read while its park-by-key state loads as lost; the load is tried again`);
    return start > offset ? start : offset;
  }

  /** Main partitions whose log start is to be read again (checkLogStartLater). */
  const logStartChecks = new Set<number>();
  /**
   * Reads p's log start again in a while, under p's lock: after a refused read, and while a
   * free key's next parked record is missing (not read again yet): retention may have deleted
   * it after the load, and with no record past it nothing else would tell (found by attack 21);
   * a parked record still in the log but not read again is sought to again (readMissingAgain).
   * Once per partition at a time; a state forgotten (a rebalance, stop()) drops it.
   */
  function checkLogStartLater(partition: number, parking: PartitionParking): void {
    if (!isCurrent(partition, parking) || logStartChecks.has(partition)) return;
    logStartChecks.add(partition);
    const setIn = generation();
    setTimer(LOG_START_CHECK_MS, () => {
      // An earlier generation's timer leaves the flag alone: it may be the check the current
      // generation asked for, and cleared, a second check would run beside it (found in review 52).
      if (generation() !== setIn) return;
      logStartChecks.delete(partition);
      onTimer(partition, setIn, (now) => readMissingAgain(partition, now));
    });
  }

  /**
   * Gives up the parked records below the main partition's log start (retention or a
   * delete-records request took them). A port that cannot tell, or a refused read, gives up
   * nothing: the records read then tell (a gap where a parked record was).
   */
  async function giveUpBelowLogStart(partition: number, parking: PartitionParking): Promise<void> {
    if (consumer().logStartOffsets === undefined) return;
    const start = await readLogStart(partition);
    if (!isCurrent(partition, parking)) return;
    // Refused (an admin not connected yet, a timeout): asked again, as nothing else may ask (found by attack 21).
    if (start === undefined) return checkLogStartLater(partition, parking);
    const gone = parkedMissingBetween(parking, 0n, start);
    if (gone.length > 0) await giveUpDeleted(partition, parking, gone, gone[0]!, start);
  }

  /**
   * The timer's work: parked records retention took are given up, and those still in the log
   * but not read again since the load are sought to again, and checked again later. A seek the
   * client dropped (the Confluent client only logs one librdkafka refuses) left them unread for
   * good when no record past them came to tell: a partition read to its end, its parked record
   * never run (the dropped-seeks property).
   */
  async function readMissingAgain(partition: number, parking: PartitionParking): Promise<void> {
    await giveUpBelowLogStart(partition, parking);
    const missing = oldestMissing(parking);
    if (missing === undefined || !isCurrent(partition, parking)) return;
    seekMain(partition, missing);
    checkLogStartLater(partition, parking);
  }

  /**
   * Gives up the parked records of a state being loaded that lie below p's log start: the
   * state is changed and the give-up said, nothing committed (the load commits, or the next
   * operation). A refused read gives up nothing: load() reads the log start again later.
   */
  async function giveUpStoredBelowLogStart(partition: number, state: ParkState): Promise<void> {
    if (consumer().logStartOffsets === undefined) return;
    const start = await readLogStart(partition);
    if (start === undefined) return; // refused: load() reads it again later
    const gone = [...state.parked.keys()].filter((offset) => offset < start).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (gone.length > 0) markGivenUp(partition, state, gone, gone[0]!, start);
  }

  /**
   * Drops given-up parked records from the state and says so. One of them may have run in a
   * process whose state never got committed (a crash), its copy now in a tier: it cannot run
   * again, so its copy must, unjudged, as after a shed (found by the retention property: the
   * copy was skipped as stale, and the record lost): the shed mark moves past them.
   */
  function markGivenUp(partition: number, state: ParkState, gone: readonly bigint[], from: bigint, to: bigint): Set<string> {
    const keys = new Set(gone.map((offset) => state.parked.get(offset)!));
    for (const offset of gone) state.parked.delete(offset);
    const past = gone[gone.length - 1]! + 1n;
    if (state.givenUpBefore === undefined || state.givenUpBefore < past) state.givenUpBefore = past;
    emit({ type: 'parked-records-deleted', topic: mainTopic, partition, offsets: gone.map(String), from: String(from), to: String(to) });
    return keys;
  }

  /**
   * Parked records the main topic no longer has: read from `from`, the partition's next record
   * came at `to`, past them (retention, a delete-records request or compaction took them; a
   * consumer lagging near the topic's retention parks records retention is about to take).
   * Waiting for them would stop their keys for good, and the partition's commit with them:
   * they are given up, said so, and their keys go on; copies of theirs run unjudged.
   */
  async function giveUpDeleted(partition: number, parking: PartitionParking, gone: readonly bigint[], from: bigint, to: bigint): Promise<void> {
    await runFreed(partition, parking, markGivenUp(partition, parking.state, gone, from, to));
  }
  return { logStartOf, lostMarkOf, checkLogStartLater, giveUpBelowLogStart, giveUpStoredBelowLogStart, giveUpDeleted, forget: () => logStartChecks.clear() };
}
