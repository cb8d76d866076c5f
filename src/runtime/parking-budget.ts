import type { RetryEventListener } from './events';
import { refusedAsTooLarge, tooLargeOnlyGuessed } from './metadata-too-large';
import { emptyParkState, encodeParkState as encodeWhole, keyHash, parkStateMetadata as metadataWhole, retryIdOfReplay, takeHold } from './park-state';
import type { ParkState } from './park-state';

/**
 * Commits of a partition's state accepted at a lowered budget before the configured one is
 * tried again: the broker's limit may have been raised since, and a try that is refused
 * costs only the records since the partition's last accepted commit, run again.
 */
export const BUDGET_RETRY_AFTER_COMMITS = 1_000;

/** A room for one more key entry, so that a commit never exceeds the budget. */
const ENTRY_ROOM = 40;

/**
 * What one main partition's park-by-key state may take in its commit's metadata: the
 * configured `parkingBudgetBytes`, lowered by every commit the broker refused as too large
 * (its `offset.metadata.max.bytes` is below it), and the configured budget again after
 * BUDGET_RETRY_AFTER_COMMITS accepted. Every measure of a state against the budget is here.
 */
export class ParkingBudget {
  private current: number;
  /** Commits of a state accepted since the budget was last lowered. */
  private acceptedAtLowered = 0;
  private refused: number | undefined;

  constructor(
    private readonly configured: number,
    private readonly mainTopic: string,
    private readonly emit: RetryEventListener,
  ) {
    this.current = configured;
  }

  /** What a state may take now. */
  get bytes(): number {
    return this.current;
  }

  /**
   * The least metadata the broker refused as too large, by name (kafkajs: not a guess): a state
   * stored at least as large cannot be committed again, and is shed. Forgotten with the
   * lowered budget when the configured one is tried again.
   */
  get refusedBytes(): number | undefined {
    return this.refused;
  }

  /**
   * Drops the state's id when an empty state with it leaves no room in the budget for one hold
   * (measured as holdFits measures one): called before any hold is measured and before each
   * state commit, so a budget lowered under the id costs the id, never a key's hold.
   */
  fitId(state: ParkState): void {
    if (state.id !== undefined && oneHoldBytes(state) > this.current) delete state.id;
  }

  /**
   * Moves an empty state's lost mark up to its position when the state is over the budget: the
   * mark is kept as a distance back from the position, so it grows with every record, and an
   * empty state has nothing else to shed; over a broker's limit every commit of the partition
   * would be refused and the same record run again without end (found by attack 11). Up to the
   * position, every tier copy from below runs unjudged, as one from before a lost state does:
   * order is what it costs, never a record. A state that holds keys keeps its mark (moved up,
   * it would unjudge the held keys' stale copies too): it pauses at the budget until a release.
   */
  fitMark(state: ParkState): void {
    if (state.held.size > 0 || state.parked.size > 0) return;
    const below = (mark: bigint | undefined) => mark !== undefined && mark < state.position;
    if (!below(state.lostBefore) && !below(state.shedBefore) && !below(state.givenUpBefore)) return;
    if (Buffer.byteLength(parkStateMetadata(state)) <= this.current) return;
    // Holding nothing, a shed's or a give-up's mark judges nothing more than a lost mark does: one mark, at the position.
    state.lostBefore = state.position;
    delete state.shedBefore;
    delete state.givenUpBefore;
  }

  /**
   * At the budget: no room for one more entry. An empty state never is: a partition paused
   * with nothing held or parked would wait for a release that can never come (a budget
   * lowered, or configured, under the empty state plus ENTRY_ROOM).
   */
  full(state: ParkState): boolean {
    return (state.held.size > 0 || state.parked.size > 0) && encodeParkState(state).length + ENTRY_ROOM > this.current;
  }

  /**
   * Whether `hash` may be held at `offset` if its record goes on to a tier, decided before the
   * record runs (what the state can keep does not depend on the outcome), so its copy carries
   * what the hold will be: always while the state keeps something else (the check before the
   * record, and a refusal, bound it), and in an empty state only if the broker can keep that
   * one hold. `state` is the state as the record's run leaves it (a drained parked record
   * taken out).
   */
  holdFits(state: ParkState, hash: string, offset: bigint, retryId?: string): boolean {
    this.fitId(state);
    if (state.held.size > 0 || state.parked.size > 0) return true;
    return heldBytes(state, hash, offset, retryId) <= this.current;
  }

  /**
   * What a tier record that may hold `hash` at `holdAt` (below the position; undefined: it takes
   * no hold) does before it runs: 'room' when the state's commit metadata stays within the
   * budget with that hold, or the state is empty (it waits for no release: holdFits() decides);
   * else 'wait', uncommitted, while room may still come (`roomMayCome`: a key is held, whose
   * release makes room, or a parked record is still to be read again, whose run does); else
   * 'none': every parked record waits behind a waiting tier record (its own key's among them),
   * so no room can come, and it runs with its hold skipped, as one that cannot fit at all is.
   * Found by attack 12's widened property: a replay waiting for room behind its own key's parked
   * record, nothing held, stalled its key for good; and by attack 19: 'none' before a re-read
   * that would have made room gave up the key's order for nothing.
   */
  roomForHold(state: ParkState, hash: string, holdAt: bigint | undefined, retryId: string | undefined, roomMayCome: boolean): 'room' | 'wait' | 'none' {
    this.fitId(state);
    if (holdAt === undefined || (state.held.size === 0 && state.parked.size === 0)) return 'room';
    if (Buffer.byteLength(parkStateMetadata(withHold(state, new Map(state.held), hash, holdAt, retryId))) <= this.current) return 'room';
    return roomMayCome ? 'wait' : 'none';
  }

  /**
   * roomForHold() for a tier record no hold judges, whose run the state must name
   * (ran-unjudged.ts): `withRun` is the state with its name, measured with the names as sent.
   * Run with no room for its name, the name was dropped from the state commit, and with its
   * tier commit then refused and a rebalance or a crash, the record ran again, after newer
   * records of its key if the state stored since had let them run. Waiting as a record that
   * needs room for a hold does, the name fits when it runs; with no room to come (or an empty
   * state) it runs, and the name, not the hold, is dropped from its state commit, as before.
   */
  roomForRun(state: ParkState, withRun: ParkState, hash: string, holdAt: bigint | undefined, retryId: string | undefined, roomMayCome: boolean): 'room' | 'wait' | 'none' {
    const forHold = this.roomForHold(state, hash, holdAt, retryId, roomMayCome);
    if (forHold !== 'room' || (state.held.size === 0 && state.parked.size === 0)) return forHold;
    const measured = holdAt === undefined ? withRun : withHold(withRun, new Map(withRun.held), hash, holdAt, retryId);
    if (state.id === undefined) delete (measured as { id?: string }).id; // as fitId() left the state
    // With no room to come it runs, its hold (if it takes one) kept: the name is what goes.
    return roomMayCome && Buffer.byteLength(metadataWhole(measured)) > this.current ? 'wait' : 'room';
  }

  /**
   * A commit of `sent` bytes of metadata of `state` was refused with `error`. The broker's
   * offset.metadata.max.bytes is below what this state took: the budget comes down under it,
   * so the state is read again (the operation fails) and taken no further than the broker
   * keeps, instead of being sent again as is. A guess (the Confluent client) never takes it
   * below the partition's state emptied to one hold (its lost mark and id kept): an outage that
   * looked like a refusal would otherwise cost the id for good, and with it the old log's
   * retries after a main topic recreated (skipped as stale), or a key's hold; a broker that
   * keeps less than that (50 bytes and more; the default is 4096) cannot keep park-by-key's
   * state on that client.
   */
  commitRefused(error: unknown, sent: number, state: ParkState, partition: number): void {
    if (!refusedAsTooLarge(error) || sent === 0) return;
    const guessed = tooLargeOnlyGuessed(error);
    if (!guessed) this.refused = Math.min(this.refused ?? sent, sent);
    const lowered = Math.max(sent - 1, guessed ? oneHoldBytes(state) : 0);
    if (lowered >= this.current) return;
    this.current = lowered;
    this.acceptedAtLowered = 0;
    this.emit({ type: 'parking-budget-lowered', topic: this.mainTopic, partition, budgetBytes: lowered, refusedBytes: sent, configuredBytes: this.configured });
  }

  /**
   * A commit of `sent` bytes of metadata was accepted: after enough at a lowered budget, the
   * configured one is tried again, as the broker's limit may have been raised since. Nothing is
   * at stake: a state past the limit is refused, the budget comes down again and the
   * partition's state is read again from its last accepted commit.
   */
  commitAccepted(sent: number): void {
    if (sent === 0 || this.current >= this.configured || ++this.acceptedAtLowered < BUDGET_RETRY_AFTER_COMMITS) return;
    const loweredBytes = this.current;
    this.current = this.configured;
    this.acceptedAtLowered = 0;
    this.refused = undefined;
    this.emit({ type: 'parking-budget-raised', topic: this.mainTopic, budgetBytes: this.current, loweredBytes });
  }
}

/**
 * The budget measures a state without the tier records it records as run unjudged (`ranUnjudged`): they are
 * dropped from a state commit they do not fit (parking-commits.ts stateCommit), never paid for
 * with a key's hold or a partition's pause (a partition paused by one would wait for a release
 * that its tier commit, not a release, ends). Only the record about to add one waits for room
 * for it (roomForRun).
 */
const withoutRanUnjudged = (state: ParkState): ParkState => (state.ranUnjudged === undefined ? state : { ...state, ranUnjudged: undefined });
const encodeParkState = (state: ParkState) => encodeWhole(withoutRanUnjudged(state));
const parkStateMetadata = (state: ParkState) => metadataWhole(withoutRanUnjudged(state));

/** The bytes of a state's commit metadata as the budget counts them: without the runs it records (`ranUnjudged`). */
export const budgetedBytes = (state: ParkState): number => Buffer.byteLength(parkStateMetadata(state));

/** The commit metadata of `state` with `hash` its one hold, at `offset` (with `retryId`, a replayed record's retry). */
export function heldBytes(state: ParkState, hash: string, offset: bigint, retryId?: string): number {
  return Buffer.byteLength(parkStateMetadata(withHold(state, new Map(), hash, offset, retryId)));
}

/** A copy of `state` to measure, holding `held` and `hash` at `offset` with its retry id. */
function withHold(state: ParkState, held: Map<string, bigint>, hash: string, offset: bigint, retryId: string | undefined): ParkState {
  const measured: ParkState = { ...state, held, retryIds: new Map(state.retryIds) };
  takeHold(measured, hash, offset, retryId);
  return measured;
}

/** Any key's hash: they are all 12 characters, so one stands for every key when measuring a hold. */
const SOME_KEY_HASH = keyHash(null);

/** Any retry id: they are all 6 characters, so one stands for every replayed record's when measuring a hold. */
const SOME_RETRY_ID = retryIdOfReplay('', 0, '0');

/**
 * The commit metadata of `state` emptied to one hold: its position, its lost mark and its id
 * kept, and the hold as wide as any can be: as far below the position as any can be (offset 0:
 * a replay or a retry from long ago holds its key at its own offset), with a retry id (a
 * replayed record's retry). What must fit for the id to stay (fitId), and the least a guessed
 * refusal leaves.
 */
function oneHoldBytes(state: ParkState): number {
  const oneHold: ParkState = emptyParkState(state.position);
  takeHold(oneHold, SOME_KEY_HASH, state.position > 0n ? 0n : -1n, SOME_RETRY_ID);
  if (state.lostBefore !== undefined) oneHold.lostBefore = state.lostBefore;
  if (state.shedBefore !== undefined) oneHold.shedBefore = state.shedBefore;
  if (state.givenUpBefore !== undefined) oneHold.givenUpBefore = state.givenUpBefore;
  if (state.id !== undefined) oneHold.id = state.id;
  return Buffer.byteLength(parkStateMetadata(oneHold));
}
