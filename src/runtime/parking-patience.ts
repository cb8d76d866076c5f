import type { CommitPatience } from './commit-patience';
import type { RetryEventListener } from './events';
import { withoutTerminator } from './park-state';
import type { ConsumerPort, OffsetCommit } from './port';

export interface ParkingPatienceOptions {
  readonly mainTopic: string;
  /** The consumer whose group's commits are read before a commit is sent again. */
  readonly consumer: () => ConsumerPort;
  readonly now: () => number;
  readonly setTimer: (ms: number, work: () => void) => () => void;
  /** Waits `ms` (rejects once the consumer stops); none: nothing is waited out. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly emit: RetryEventListener;
}

/** A commit as sent or as read back (metadata null when none). */
type GroupCommit = { readonly offset: string; readonly metadata?: string | null };

/** A tier commit sent after its state: the group's commit of its partition it was sent over (none known: it may not wait). */
export interface TierCommitSent {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly over: bigint | undefined;
}

/**
 * What park-by-key's commits may wait out, per main partition p (commit-patience.ts): only in a
 * record's callback, which heartbeats after each wait (a timer's operation has none, and the
 * client's callbacks waiting on p's lock cannot heartbeat meanwhile: attack 42); one patience per
 * operation (a release commits once per parked record it runs); and only over the group's
 * commits the commit was sent over, as a topic created again meanwhile would take the old log's
 * position (attacks 41 and 42).
 */
export function createParkingPatience(options: ParkingPatienceOptions) {
  const { mainTopic } = options;
  /** The heartbeat of the record whose operation holds each p's lock (none: a timer's). */
  const heartbeats = new Map<number, () => Promise<void>>();
  /** When the operation holding p's lock first sent a commit it may wait out. */
  const since = new Map<number, number>();
  /** The group's commit of main partition p as this member last read or stored it. */
  const storedMain = new Map<number, GroupCommit>();

  const sinceOf = (partition: number) => {
    let at = since.get(partition);
    if (at === undefined) since.set(partition, (at = options.now()));
    return at;
  };

  const patience = (partition: number, stillOurs: () => boolean, stillValid: () => Promise<boolean | undefined>): CommitPatience => ({
    stillOurs,
    stillValid,
    since: sinceOf(partition),
    now: options.now,
    setTimer: options.setTimer,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    onRefused: (error) => options.emit({ type: 'commit-failed', error }),
    heartbeat: () => heartbeats.get(partition)?.() ?? Promise.resolve(),
  });

  /** Whether the group's commit of p is still the one this member knows (or one being sent, stored despite its refusal); undefined when the read is refused. */
  async function mainCommitStillOurs(partition: number, sending: readonly OffsetCommit[]): Promise<boolean | undefined> {
    let group: GroupCommit | undefined;
    try {
      [group] = await options.consumer().committed(mainTopic, [partition]);
    } catch {
      return undefined;
    }
    return sameCommit(group, storedMain.get(partition)) || sending.some((c) => c.topic === mainTopic && sameCommit(group, c));
  }

  /** Whether the group's commit of each tier partition is still the one it was sent over (or the one being sent); undefined when a read is refused. */
  async function tierCommitsStillOver(sending: readonly TierCommitSent[]): Promise<boolean | undefined> {
    try {
      for (const c of sending) {
        if (c.over === undefined) return false; // nothing tells the log it was sent on
        const [group] = await options.consumer().committed(c.topic, [c.partition]);
        const at = group !== undefined && /^\d+$/.test(group.offset) ? BigInt(group.offset) : undefined;
        if (at !== c.over && group?.offset !== c.offset) return false;
      }
      return true;
    } catch {
      return undefined;
    }
  }

  return {
    /** An operation of p begins under its lock: a record's callback with its heartbeat, or a timer's without. */
    begin(partition: number, heartbeat: (() => Promise<void>) | undefined): void {
      if (heartbeat) heartbeats.set(partition, heartbeat);
      else heartbeats.delete(partition);
      since.delete(partition);
    },
    /** Whether the operation holding p's lock may wait out a refused commit: a record's callback. */
    mayWait: (partition: number): boolean => heartbeats.has(partition),
    /** p's group commit as a load read it or an accepted commit stored it. */
    stored(partition: number, commit: GroupCommit): void {
      storedMain.set(partition, commit);
    },
    /** The patience of a commit of p's state, `sending`, while `stillOurs`. */
    ofState: (partition: number, stillOurs: () => boolean, sending: readonly OffsetCommit[]) => patience(partition, stillOurs, () => mainCommitStillOurs(partition, sending)),
    /** The patience of the tier commits sent after p's stored state. */
    ofTiers: (partition: number, stillOurs: () => boolean, sending: readonly TierCommitSent[]) => patience(partition, stillOurs, () => tierCommitsStillOver(sending)),
  };
}

/** The same commit as readers give it back: the NUL a state is written with is not read back (attack 43). */
const sameCommit = (a: GroupCommit | undefined, b: GroupCommit | undefined) =>
  a !== undefined && b !== undefined && a.offset === b.offset && withoutTerminator(a.metadata) === withoutTerminator(b.metadata);
