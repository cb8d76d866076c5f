import { backoffMs } from './backoff';
import { someCause } from './error-causes';
import { refusedAsTooLarge } from './metadata-too-large';

/**
 * How long one operation of a park-by-key partition waits out refused commits of the state it
 * ran before it fails (and its record is handed over again, to run again), on the clock from
 * its first send: the group session kafkajs keeps by default. A member whose commits are
 * refused longer than that has likely lost its place in the group, and a blocked callback
 * would hold up its client's rejoin.
 */
export const COMMIT_PATIENCE_MS = 30_000;

/** The wait before each try again: 100 ms, doubled per refusal, at most 5 s. */
const AGAIN = { backoffMs: 100, maxBackoffMs: 5_000, jitter: 0 } as const;

/** The property an adapter sets on a commit refusal its client cures by itself. */
const MARK = 'krtWorthWaitingOut';

/**
 * Marks a commit refusal as one the client accepts if the same commit is sent again shortly:
 * its group coordinator, or the connection to it, is away for a moment and the client finds
 * it again by itself. Only the adapter can tell (kafkajs keeps the coordinator of its
 * generation and finds a moved one only by a rejoin; the Confluent client finds it itself,
 * and its errors carry a code, not always a name), so each marks its own client's refusals.
 */
export function markWorthWaitingOut<E>(error: E): E {
  if (error !== null && typeof error === 'object') Object.assign(error, { [MARK]: true });
  return error;
}

/** The type an adapter gives a commit it refused because its client is not running (stopped by a crash or an outage). */
export const CLIENT_STOPPED = 'CLIENT_STOPPED';

/** Refusals that say the member cannot commit these partitions again by waiting: it lost its place in the group, or its client stopped. */
const CANNOT_WAIT_OUT = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'REBALANCE_IN_PROGRESS', 'FENCED_INSTANCE_ID', 'ASSIGNMENT_LOST', 'STATE', 'FENCED', CLIENT_STOPPED]);

const bareType = (e: object) => {
  const type = (e as { type?: unknown }).type;
  return typeof type === 'string' ? type.replace(/^ERR_+/, '') : undefined;
};

/**
 * Whether a refused commit may be accepted if sent again in a while: its adapter marked it so,
 * and nothing it carries says the member lost its place or its client stopped; never a refusal
 * as too large (the budget handles those).
 */
export function worthWaitingOut(error: unknown): boolean {
  if (refusedAsTooLarge(error) || someCause(error, (e) => CANNOT_WAIT_OUT.has(bareType(e) ?? ''))) return false;
  return someCause(error, (e) => (e as Record<string, unknown>)[MARK] === true);
}

export interface CommitPatience {
  /** Whether the commit still speaks for the partition (no rebalance or failure dropped its state meanwhile). */
  readonly stillOurs: () => boolean;
  /** The clock the patience is measured on. */
  readonly now: () => number;
  /** When the patience began: the first send of the operation's first commit (one operation may commit several times). Default: this send. */
  readonly since?: number;
  /** Waits `ms`; rejects once the consumer stops. None: no waiting. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Runs `work` after `ms`, returning a cancel: bounds the heartbeat and the read between sends by the patience left. None: unbounded. */
  readonly setTimer?: (ms: number, work: () => void) => () => void;
  /** Each refusal waited out. */
  readonly onRefused?: (error: unknown) => void;
  /**
   * Tells the coordinator the member is alive after each wait (kafkajs heartbeats only between
   * records, and the wait is inside one); a heartbeat refused for a reason not worth waiting
   * out (a rebalance began) ends the wait.
   */
  readonly heartbeat?: () => Promise<void>;
  /**
   * Asked before each send again: whether what the commit was sent over is still there (true),
   * is not (false: the refusal stands; a topic created again meanwhile would take the old log's
   * position), or cannot be told now (undefined: the read was refused too; waited on again).
   */
  readonly stillValid?: () => Promise<boolean | undefined>;
}

/**
 * Sends a commit until it is accepted, waiting out refusals worth it while the next try would
 * still begin within COMMIT_PATIENCE_MS of the first send (a send that takes a request's
 * time-out counts), and only while `stillValid` says what it was sent over is still there;
 * otherwise rejects with the last refusal. So a coordinator away for a few seconds costs a
 * wait, not a run again of every record whose state commit it refused (found by attack 32:
 * the handler ran once per refusal).
 */
export async function untilAccepted(send: () => Promise<void>, patience: CommitPatience): Promise<void> {
  const since = patience.since ?? patience.now();
  let refusal: unknown;
  let sendNow = true;
  for (let waits = 1; ; waits++) {
    if (sendNow) {
      try {
        await send();
        return;
      } catch (error) {
        refusal = error;
        if (!worthWaitingOut(error)) throw error;
        patience.onRefused?.(error);
      }
    }
    const ms = backoffMs(waits, AGAIN);
    if (patience.sleep === undefined || patience.now() + ms - since > COMMIT_PATIENCE_MS || !patience.stillOurs()) throw refusal;
    try {
      await patience.sleep(ms);
    } catch {
      throw refusal; // stopping: the operation fails as it would have
    }
    // The heartbeat and the read go to the coordinator that is away: each bounded by the patience left (attack 43).
    const alive = await withinPatience(aliveAfterWait(patience), since, patience);
    if (!patience.stillOurs() || alive === false) throw refusal;
    const valid = patience.stillValid === undefined ? true : await withinPatience(patience.stillValid(), since, patience);
    if (valid === false || patience.now() - since > COMMIT_PATIENCE_MS) throw refusal;
    sendNow = valid === true;
  }
}

/** A heartbeat refused so says the member must rejoin: it lost its place, or (kafkajs) its coordinator moved. */
const MUST_REJOIN = new Set([...CANNOT_WAIT_OUT, 'NOT_COORDINATOR_FOR_GROUP', 'NOT_COORDINATOR']);

/** Heartbeats after a wait; false when the heartbeat says the member must rejoin, which it can only once the callback returns. */
async function aliveAfterWait(patience: CommitPatience): Promise<boolean> {
  try {
    await patience.heartbeat?.();
    return true;
  } catch (error) {
    return !someCause(error, (e) => MUST_REJOIN.has(bareType(e) ?? ''));
  }
}

/** What `work` answers, or undefined once the patience begun at `since` runs out first. */
async function withinPatience<T>(work: Promise<T>, since: number, patience: CommitPatience): Promise<T | undefined> {
  const left = COMMIT_PATIENCE_MS - (patience.now() - since);
  if (left <= 0) return undefined;
  if (patience.setTimer === undefined) return work;
  const setTimer = patience.setTimer;
  return new Promise<T | undefined>((resolve, reject) => {
    const cancel = setTimer(left, () => resolve(undefined));
    work.then(
      (value) => (cancel(), resolve(value)),
      (error: unknown) => (cancel(), reject(error)),
    );
  });
}
