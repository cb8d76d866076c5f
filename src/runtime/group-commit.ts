import type { Clock } from './clock';
import type { ConsumerPort } from './port';
import { settlesWithin } from './settles-within';

/**
 * How long the first batch after a rebalance waits for the group's commit; past it the read
 * counts as failed. The batch does not heartbeat meanwhile, and a client's own retries of
 * the read can outlast the group's session.
 */
export const GROUP_COMMIT_READ_TIMEOUT_MS = 5_000;

/** Between tries of a failed read (a coordinator that moved in the rebalance is still loading its offsets). */
const READ_AGAIN_AFTER_MS = 250;

/** The group's commit of a partition: its offset (-1 for none) and the metadata stored with it. */
export interface GroupCommit {
  readonly offset: bigint;
  readonly metadata: string | null;
}

/**
 * The group's commit of a partition, read from the broker, tried again while it fails;
 * undefined when it cannot be read within GROUP_COMMIT_READ_TIMEOUT_MS.
 */
export async function groupCommitOf(consumer: ConsumerPort, at: { topic: string; partition: number }, clock: Clock): Promise<GroupCommit | undefined> {
  let cancel: (() => void) | undefined;
  let over = false;
  const timedOut = new Promise<undefined>((resolve) => (cancel = clock.setTimer(GROUP_COMMIT_READ_TIMEOUT_MS, () => resolve((over = true, undefined)))));
  const read = async (): Promise<GroupCommit | undefined> => {
    while (!over) {
      try {
        const [committed] = await consumer.committed(at.topic, [at.partition]);
        return committed === undefined ? undefined : { offset: BigInt(committed.offset), metadata: committed.metadata ?? null };
      } catch {
        await settlesWithin(clock, timedOut, READ_AGAIN_AFTER_MS); // a wait whose timer goes with it
      }
    }
    return undefined;
  };
  try {
    return await Promise.race([read(), timedOut]);
  } finally {
    cancel?.();
    over = true;
  }
}

/** What a partition's first record after a rebalance says of what this member finished before it. */
export type LogJudgement = 'new-log' | 'read-past' | 'read-past-acknowledged' | 'run-again';

/**
 * `committed`: the group's commit (undefined when unread); `acknowledged`: this member's last
 * commit the broker acknowledged; `committedIsOwn`: the group's commit is one this member
 * sent (its stamp in the metadata, on clients that carry it; else acknowledged, or sent since:
 * stored while its answer was lost to an outage);
 * `startsWhereItStarted`: the partition starts with the very record (offset, timestamp, key,
 * value) this member first read there. The group's commit below the acknowledged one is a
 * new log (a live group's commit moves back only when the topic was created again), unless it
 * is this member's own: only its stamp can say so (offsets below the acknowledged one are not
 * kept), and a broker killed and started again may show an older commit, its later ones lost
 * (kafkajs, outage test: 366 shown, 767 acknowledged; 401 records ran again as a new log). Records
 * finished here are read past only where the log is surely the one they were finished in: the
 * group's commit is this member's own, or the partition starts where this member started.
 * Unread (no answer within the read's timeout, tries included), only the latter proves it;
 * else what lies below this member's acknowledged commit is read past (a new log read from
 * below it would have to start at 0, or at another member's commit below it: rare enough next
 * to running committed records again without bound), and what lies above runs again, within
 * the commit window, rather than risk skipping a new log's records. Another member's commit past this member's own
 * may be in a new log (the topic created again and read there since): what this member
 * finished then runs again, within the commit window.
 */
export function judgeLog(committed: bigint | undefined, acknowledged: bigint | undefined, committedIsOwn: boolean, startsWhereItStarted: boolean): LogJudgement {
  // Below the acknowledged one yet this member's own (its stamp): not a new log, whose commits
  // would not carry it, but an older commit of this log that a broker killed and started again
  // shows, its later ones lost. What was finished stands.
  if (committed !== undefined && acknowledged !== undefined && committed < acknowledged) return committedIsOwn ? 'read-past' : 'new-log';
  const ownCommit = acknowledged !== undefined && committed !== undefined && committedIsOwn;
  if (ownCommit || startsWhereItStarted) return 'read-past';
  return committed === undefined && acknowledged !== undefined ? 'read-past-acknowledged' : 'run-again';
}
