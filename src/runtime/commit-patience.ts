import { backoffMs } from './backoff';
import { someCause } from './error-causes';
import { refusedAsTooLarge } from './metadata-too-large';

/**
 * How long one operation of a park-by-key partition waits out refused commits of the state it
 * ran before it fails (and its record is handed over again, to run again): the group session
 * kafkajs keeps by default. A member whose commits are refused longer than that has likely
 * lost its place in the group, and a blocked callback would hold up its client's rejoin.
 */
export const COMMIT_PATIENCE_MS = 30_000;

/** The type an adapter gives a commit it refused because its client is not running (stopped by a crash or an outage). */
export const CLIENT_STOPPED = 'CLIENT_STOPPED';

/** The wait before each try again: 100 ms, doubled per refusal, at most 5 s. */
const AGAIN = { backoffMs: 100, maxBackoffMs: 5_000, jitter: 0 } as const;

/**
 * Refusals of a whole request while the group's coordinator is away (moving, loading its
 * offsets) or the connection to it is: the only ones waited out, as sending the same commit
 * again then stores exactly what was meant. kafkajs names the protocol errors bare (and its
 * older names), the Confluent client with `ERR_` or `ERR__` before them. A refusal of one
 * partition (its topic deleted, say) is not among them: the topic may be created again while
 * the commit waits, and the old log's offset would land on the new one (attack 25).
 */
const COORDINATOR_AWAY = new Set(['NOT_COORDINATOR', 'NOT_COORDINATOR_FOR_GROUP', 'COORDINATOR_NOT_AVAILABLE', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS', 'GROUP_LOAD_IN_PROGRESS', 'REQUEST_TIMED_OUT', 'TIMED_OUT', 'TRANSPORT', 'ALL_BROKERS_DOWN', 'NETWORK_EXCEPTION']);

/** kafkajs's errors for a connection that failed or timed out (no protocol error type). */
const CONNECTION_FAILED = new Set(['KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError']);

/** Refusals that say the member cannot commit these partitions again by waiting: it lost its place in the group, or its client stopped. */
const CANNOT_WAIT_OUT = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'REBALANCE_IN_PROGRESS', 'FENCED_INSTANCE_ID', 'ASSIGNMENT_LOST', 'STATE', 'FENCED', CLIENT_STOPPED]);

const bareType = (e: object) => {
  const type = (e as { type?: unknown }).type;
  return typeof type === 'string' ? type.replace(/^ERR_+/, '') : undefined;
};

/**
 * Whether a refused commit may be accepted if sent again in a while: the coordinator or the
 * connection to it was away, and nothing says the member lost its place or its client stopped;
 * never a refusal as too large (the budget handles those).
 */
export function worthWaitingOut(error: unknown): boolean {
  if (refusedAsTooLarge(error) || someCause(error, (e) => CANNOT_WAIT_OUT.has(bareType(e) ?? ''))) return false;
  return someCause(error, (e) => COORDINATOR_AWAY.has(bareType(e) ?? '') || CONNECTION_FAILED.has((e as { name?: unknown }).name as string));
}

export interface CommitPatience {
  /** Whether the commit still speaks for the partition (no rebalance or failure dropped its state meanwhile). */
  readonly stillOurs: () => boolean;
  /** Waits `ms`; rejects once the consumer stops. None: no waiting. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Each refusal waited out. */
  readonly onRefused?: (error: unknown) => void;
  /**
   * Tells the coordinator the member is alive after each wait (kafkajs heartbeats only between
   * records, and the wait is inside one); a heartbeat refused for a reason not worth waiting
   * out (a rebalance began) ends the wait.
   */
  readonly heartbeat?: () => Promise<void>;
}

/**
 * Sends a commit until it is accepted, waiting out refusals worth it for up to
 * COMMIT_PATIENCE_MS in all; otherwise rejects with the last refusal. So a coordinator away for
 * a few seconds costs a wait, not a run again of every record whose state commit it refused
 * (found by attack 32: the handler ran once per refusal).
 */
export async function untilAccepted(send: () => Promise<void>, patience: CommitPatience): Promise<void> {
  let waited = 0;
  for (let refusals = 1; ; refusals++) {
    try {
      await send();
      return;
    } catch (error) {
      const ms = backoffMs(refusals, AGAIN);
      if (patience.sleep === undefined || waited + ms > COMMIT_PATIENCE_MS || !worthWaitingOut(error) || !patience.stillOurs()) throw error;
      patience.onRefused?.(error);
      try {
        await patience.sleep(ms);
      } catch {
        throw error; // stopping: the operation fails as it would have
      }
      waited += ms;
      if (!patience.stillOurs() || !(await aliveAfterWait(patience))) throw error;
    }
  }
}

/** Heartbeats after a wait; false when the heartbeat says the member cannot go on waiting. */
async function aliveAfterWait(patience: CommitPatience): Promise<boolean> {
  try {
    await patience.heartbeat?.();
    return true;
  } catch (error) {
    return worthWaitingOut(error);
  }
}
