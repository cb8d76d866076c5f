import { createHash, randomBytes } from 'node:crypto';

/**
 * The park-by-key state of one main partition, kept in the metadata of the group's
 * commit of that partition: written in the same request as the offset, so the two never
 * disagree, and fenced by the group generation, so a member that lost the partition
 * cannot overwrite it.
 */
export interface ParkState {
  /** The next main-topic offset to read: every record before it was handled or is parked. */
  position: bigint;
  /** Keys (hashed) with a record in the tiers, and that record's main-topic offset. */
  readonly held: Map<string, bigint>;
  /**
   * The retry id of a hold taken by a record replayed from the DLQ (retryIdOfReplay), by the
   * hold's key; its copies carry it (PARK_STATE_HEADER). Two retries can share a key and an
   * original offset (two logs' DLQ records replayed, a replay and the record now in retry),
   * and a copy of the one that ended, read again after a refused tier commit, released the
   * other's hold: that retry's own copy was then skipped as stale, and lost. A hold without
   * one is a main record's retry, whose copies carry none. Absent: no such hold. Changed
   * only through takeHold() and releaseHold(), so a retry id never outlives its hold.
   */
  readonly retryIds?: Map<string, string>;
  /** Parked records below `position`: offset -> key hash. Run in offset order once their key is not held. */
  readonly parked: Map<bigint, string>;
  /**
   * Set once the partition's state read as lost: the committed offset then. A tier record
   * from below it whose key is not held may be a retry the lost state held, so it runs (as
   * a record replayed from the DLQ does) instead of being skipped as a stale copy. Also
   * moved past a record whose hold the broker could not keep (no room for one hold).
   */
  lostBefore?: bigint;
  /**
   * Set when a shed gave up holds (shedToFit): past the newest record whose hold it gave up.
   * A tier record from below it runs unjudged, as one from below `lostBefore` does, unless
   * its key is still held by a hold the shed kept (at or past `lostBefore`, below this
   * mark): the state was whole until the shed, so that hold judges its key's copies as
   * before, and a stale one is still skipped (found by attack 11, when the shed moved
   * `lostBefore` itself and unjudged the kept keys' stale copies). No record below it takes
   * a hold: a hold there must be one the shed kept.
   */
  shedBefore?: bigint;
  /**
   * Set when parked records were given up (retention or compaction deleted them before they
   * were read again: parking-log-start.ts giveUpDeleted): past the newest of them. One of them may
   * have run in a process whose state was never committed, its copy in a tier the only thing
   * left of it, so a tier record from below this mark runs unjudged (in its key's turn, in its
   * record's place) unless it is its key's current retry. No hold judges it: a hold in this
   * range may be older than the given-up record (the copy is newer than the hold) or newer
   * (taken since), and skipped, its copy was lost (attacks 21 and 23). Kept apart from
   * `shedBefore`, whose kept holds judge their keys: a give-up moving that mark took holds
   * taken since for kept ones. Its cost: a stale copy from below it runs once more.
   */
  givenUpBefore?: bigint;
  /**
   * The state's id, taken when it began from nothing: the group had no commit of the
   * partition (a new group, the main topic deleted and created again, its offsets expired).
   * The copy of a record whose key it holds carries it (PARK_STATE_HEADER); a tier record
   * carrying another id was written under a state that is gone, whose offsets may name
   * records of another log, so this state's holds never judge it.
   */
  id?: string;
  /**
   * Tier records that ran under this state unjudged by any hold (a replay from the DLQ, a copy
   * from before a lost state or a shed, one of another state's), by their run id (retryIdOfReplay
   * of where and when they were written), with where they were read (the tier's index among the
   * consumer's tiers, and the offset), kept until a commit of their tier partition past them is
   * accepted. Such a run is recorded by its tier's commit alone: read again after that commit was
   * lost (refused, with a rebalance or a crash before it went again), the record ran once more,
   * after a newer record of its key (found by attacks 25 and 27). Read again, a record named here
   * is skipped as run (ran-unjudged.ts).
   */
  ranUnjudged?: Map<string, RanUnjudged>;
}

/** Where a tier record that ran unjudged was read: its tier's index among the consumer's tiers, and its offset there. */
export interface RanUnjudged {
  readonly tier: number;
  readonly offset: bigint;
}

/** Records that the record with run id `runId`, read at `at`, ran: until its tier's commit passes it (forgetRanUnjudged). */
export function markRanUnjudged(state: ParkState, runId: string, at: RanUnjudged): void {
  ((state as { ranUnjudged?: Map<string, RanUnjudged> }).ranUnjudged ??= new Map()).set(runId, at);
}

/** Forgets the runs `gone` says no read can bring back; without any, a state has no ranUnjudged at all. */
export function forgetRanUnjudged(state: ParkState, gone: (at: RanUnjudged) => boolean): void {
  for (const [runId, at] of state.ranUnjudged ?? []) if (gone(at)) state.ranUnjudged!.delete(runId);
  if (state.ranUnjudged?.size === 0) delete (state as { ranUnjudged?: unknown }).ranUnjudged;
}

/** A new state id: 8 URL-safe characters (48 random bits). */
export function newParkStateId(): string {
  for (;;) {
    const id = randomBytes(6).toString('base64url');
    if (id !== NO_STATE_ID) return id;
  }
}

/**
 * The state id of a tier copy no state's hold may judge: the copy of a record that ran
 * unjudged and could take no hold (a record of another log or state, a replay or a record
 * from before the state whose offset it cannot hold). Every later hop runs it unjudged, as
 * its record ran, whatever the state it meets: a state whose own id went to the broker's
 * metadata limit cannot tell a random id from its own (found by attack 12: such a copy was
 * skipped as stale, and lost). Never an id a state takes (newParkStateId).
 */
export const NO_STATE_ID = 'no-state';

/**
 * Whether a tier record that carries the state id `written` was written under another state
 * than `state`: it carries NO_STATE_ID, or both have ids and they differ. A record without one
 * (written by an earlier release, or replayed from the DLQ), or a state without one (its id
 * did not fit the broker's metadata limit: the holds judge every record, as before ids), is
 * judged as before.
 */
export function writtenUnderAnotherState(state: ParkState, written: string | undefined): boolean {
  return written === NO_STATE_ID || (state.id !== undefined && written !== undefined && written !== state.id);
}

/** Holds `hash` at `offset` for a retry, with its retry id when a replayed record's retry takes it. */
export function takeHold(state: ParkState, hash: string, offset: bigint, retryId?: string): void {
  state.held.set(hash, offset);
  if (retryId !== undefined) retryIdsOf(state).set(hash, retryId);
  else forgetRetryId(state, hash);
}

/** Frees the key: its hold and the hold's retry id. */
export function releaseHold(state: ParkState, hash: string): void {
  state.held.delete(hash);
  forgetRetryId(state, hash);
}

type WithRetryIds = { retryIds?: Map<string, string> };

function retryIdsOf(state: ParkState): Map<string, string> {
  return ((state as WithRetryIds).retryIds ??= new Map());
}

/** Without any, a state has no retryIds at all: one state, one shape (a state read back equals the one written). */
function forgetRetryId(state: ParkState, hash: string): void {
  state.retryIds?.delete(hash);
  if (state.retryIds?.size === 0) delete (state as WithRetryIds).retryIds;
}

/** A retry id: 6 URL-safe characters (36 bits of a hash). */
export const RETRY_ID_PATTERN = /^[A-Za-z0-9_-]{6}$/;

/**
 * The retry id of a hold a replayed record takes: from where `krt dlq replay` wrote it (topic,
 * partition, offset) and when (its timestamp: a tier created again starts its offsets over),
 * which no other record shares, so two replays of one DLQ record, or of two logs' records at one
 * offset, are two retries.
 */
export function retryIdOfReplay(topic: string, partition: number, offset: string, timestamp = ''): string {
  return createHash('sha256').update(`${topic}\u0000${partition}\u0000${offset}\u0000${timestamp}`).digest('base64url').slice(0, 6);
}

/** The format the runtime writes: ends with END, so nothing read back can extend or cut a state and still parse. */
export const PARK_STATE_FORMAT = 'krt-parked/2';
/** The format of earlier releases, read as written (its last field is open-ended: a trailing byte extends it). */
export const LEGACY_PARK_STATE_FORMAT = 'krt-parked/1';
const END = '.';

/** Kafka's default `offset.metadata.max.bytes` is 4096; leave room for the format tag. */
export const DEFAULT_PARK_STATE_BUDGET = 4000;

/**
 * Keys are stored hashed (72 bits) so that the state stays small whatever the key. Two
 * keys that collide wait for each other: later, never out of order.
 */
export function keyHash(key: Buffer | null): string {
  return createHash('sha256')
    .update(key ?? Buffer.alloc(0))
    .digest()
    .subarray(0, 9)
    .toString('base64url');
}

export function emptyParkState(position: bigint): ParkState {
  return { position, held: new Map(), parked: new Map() };
}

/**
 * The offset to commit: the oldest parked record, else the position. A restarted
 * consumer reads again from there (no seek needed) and skips what the metadata says was
 * handled; if the metadata were lost, records would run again, never be lost.
 */
export function committedOffsetOf(state: ParkState): bigint {
  let oldest = state.position;
  for (const offset of state.parked.keys()) if (offset < oldest) oldest = offset;
  return oldest;
}

/**
 * `krt-parked/2 +<d> [~<d>] [!<id>] <entry> <entry> ... .`: the position `d` past the committed
 * offset, then `~d` when the state was once lost (`lostBefore`, `d` below the position,
 * 0 included), then `^d` when a shed gave up holds (`shedBefore`, the same way), then `&d`
 * when parked records were given up (`givenUpBefore`, the same way), then
 * `!id` when it began from nothing or in place of a lost state (its id, 8
 * characters), then `%t.o=r` per tier record that ran unjudged and whose tier commit is not known stored
 * (`ranUnjudged`: the tier's index and the offset in base 36, the run id; in string order),
 * then one entry per key: `hash`, then `@d` when the key is held by the record `d`
 * before the position, with `=r` after it when a replayed record's retry holds it (its retry
 * id, 6 characters; only such a hold may be at the position, `@0`), then `:d,d` for its parked records (distances below the position, all
 * in base 36), then the end token `.`. Without the end, a byte after the last field (a hold's
 * distance, say) would read as a valid state with another value, and a state cut short as a
 * shorter valid one; with it both read as lost. Releases before `/2` read it as lost, and
 * releases before `&d` read a state with one as lost (rare: only after a give-up), and
 * releases before `%t.o=r` one with such a run in it (rare: between an unjudged run and the
 * next commit of the partition's state).
 */
export function encodeParkState(state: ParkState): string {
  return [PARK_STATE_FORMAT, ...stateFields(state), END].join(' ');
}

/** The fields of a state, between the format tag and the end token (the same in both formats). */
function stateFields(state: ParkState): string[] {
  const keys = new Set([...state.held.keys(), ...state.parked.values()]);
  const distance = (offset: bigint) => (state.position - offset).toString(36);
  const entries = [...keys].sort().map((hash) => {
    const holder = state.held.get(hash);
    const parked = [...state.parked].filter(([, h]) => h === hash).map(([offset]) => offset);
    parked.sort((a, b) => (a < b ? -1 : 1));
    const retryId = holder === undefined ? undefined : state.retryIds?.get(hash);
    return `${hash}${holder === undefined ? '' : `@${distance(holder)}${retryId === undefined ? '' : `=${retryId}`}`}${parked.length ? `:${parked.map(distance).join(',')}` : ''}`;
  });
  const lost = state.lostBefore === undefined ? [] : [`~${(state.position - state.lostBefore).toString(36)}`];
  const shed = state.shedBefore === undefined ? [] : [`^${(state.position - state.shedBefore).toString(36)}`];
  const givenUp = state.givenUpBefore === undefined ? [] : [`&${(state.position - state.givenUpBefore).toString(36)}`];
  const id = state.id === undefined ? [] : [`!${state.id}`];
  const ran = [...(state.ranUnjudged ?? [])].map(([retryId, at]) => `%${at.tier.toString(36)}.${at.offset.toString(36)}=${retryId}`).sort();
  return [`+${(state.position - committedOffsetOf(state)).toString(36)}`, ...lost, ...shed, ...givenUp, ...id, ...ran, ...entries];
}

/**
 * The commit metadata of a state: its encoding and a NUL, as the Confluent client writes
 * any metadata. The Confluent client's admin reads committed metadata as a C string, so
 * metadata another client wrote without a NUL comes back with whatever bytes follow it in
 * memory (seen: `...@3:2` read as `...@3:20`, which discards the state); with the NUL
 * every client reads it exactly. Readers strip it (`decodeParkState`), as before.
 */
export function parkStateMetadata(state: ParkState): string {
  return `${encodeParkState(state)}\0`;
}

const DISTANCE = /^\+([0-9a-z]{1,13})$/;
const LOST = /^~([0-9a-z]{1,13})$/;
const SHED = /^\^([0-9a-z]{1,13})$/;
const GIVEN_UP = /^&([0-9a-z]{1,13})$/;
// Exactly 8 characters, so a byte after it (a reader that lost the NUL) is no id.
const ID = /^!([A-Za-z0-9_-]{8})$/;
const RAN_REPLAY = /^%([0-9a-z]{1,2})\.([0-9a-z]{1,13})=([A-Za-z0-9_-]{6})$/;
const ENTRY = /^([A-Za-z0-9_-]{12})(?:@([0-9a-z]{1,13})(?:=([A-Za-z0-9_-]{6}))?)?(?::([0-9a-z]{1,13}(?:,[0-9a-z]{1,13})*))?$/;

/** A base-36 distance as a bigint (13 digits hold any Kafka offset; the patterns allow no more). */
function base36(digits: string): bigint {
  let n = 0n;
  for (const digit of digits) n = n * 36n + BigInt(parseInt(digit, 36));
  return n;
}

/**
 * Reads the state a previous commit left at offset `committed`. No metadata, or metadata
 * that is not ours or not exactly what the encoder writes for some state at this offset
 * (an offset before 0, a parked record at or past the position, a main record's
 * retry's hold at it, a position
 * that is not the oldest parked record's distance, entries out of order or repeated,
 * digits the encoder would not write), is an empty state at the committed offset:
 * nothing held or parked, every record from there on runs again, none is skipped. So
 * decode(x) either encodes back to x or is empty. Never throws. The runtime reads
 * through `readParkState`, which also says when the state was lost.
 */
export function decodeParkState(committed: bigint, metadata: string | null | undefined): ParkState {
  return parseParkState(committed, metadata) ?? emptyParkState(committed);
}

/** Why a partition's state reads as lost: no metadata at all (an offset reset, a client that commits none), or metadata that is no state of ours. */
export type ParkStateLoss = 'none' | 'unreadable';

/**
 * The state of a partition as the runtime loads it. `committed` undefined: the group has no
 * commit of the partition, so the state begins from nothing, with the id `newId` gives it:
 * tier records written under another state are not its to judge. A commit whose metadata
 * is no state (`decodeParkState`) reads as lost: an empty state at the committed offset,
 * marked `lostBefore` there, with the reason and a new id too: the lost state's copies (and
 * any older log's) are then another state's, run unjudged, as only they can be: the holds
 * that judged them are gone. `legacy`: the state is in an earlier release's format.
 */
export function readParkState(committed: bigint | undefined, metadata: string | null | undefined, newId: () => string = newParkStateId): { state: ParkState; lost?: ParkStateLoss; legacy?: true } {
  if (committed === undefined) return { state: { ...emptyParkState(0n), id: newId() } };
  const state = parseParkState(committed, metadata);
  if (state) return withoutTerminator(metadata).startsWith(`${LEGACY_PARK_STATE_FORMAT} `) ? { state, legacy: true } : { state };
  const lost: ParkStateLoss = withoutTerminator(metadata) === '' ? 'none' : 'unreadable';
  return { state: { ...emptyParkState(committed), lostBefore: committed, id: newId() }, lost };
}

/** Commit metadata as every reader gives it back: written with a NUL terminator (parkStateMetadata, and the Confluent client adds one), which the adapters' reader strips. */
export const withoutTerminator = (metadata: string | null | undefined) => (metadata ?? '').replace(/\0+$/, '');

/** The state `metadata` encodes at `committed`, or undefined when it is no state the encoder writes. */
function parseParkState(committed: bigint, metadata: string | null | undefined): ParkState | undefined {
  const text = withoutTerminator(metadata);
  const [format, ...fields] = text.split(' ');
  // The current format ends with END; an earlier release's state is read as it wrote it.
  if (format === PARK_STATE_FORMAT ? fields.pop() !== END : format !== LEGACY_PARK_STATE_FORMAT) return undefined;
  const [ahead, ...tokens] = fields;
  const distance = ahead === undefined ? null : DISTANCE.exec(ahead);
  if (!distance) return undefined;
  const position = committed + base36(distance[1]!);
  const lost = tokens[0] === undefined ? null : LOST.exec(tokens[0]);
  const lostBefore = lost ? position - base36(lost[1]!) : undefined;
  if (lostBefore !== undefined && lostBefore < 0n) return undefined;
  const afterLost = lost ? tokens.slice(1) : tokens;
  const shed = afterLost[0] === undefined ? null : SHED.exec(afterLost[0]);
  const shedBefore = shed ? position - base36(shed[1]!) : undefined;
  if (shedBefore !== undefined && shedBefore < 0n) return undefined;
  const afterShed = shed ? afterLost.slice(1) : afterLost;
  const givenUp = afterShed[0] === undefined ? null : GIVEN_UP.exec(afterShed[0]);
  const givenUpBefore = givenUp ? position - base36(givenUp[1]!) : undefined;
  if (givenUpBefore !== undefined && givenUpBefore < 0n) return undefined;
  const rest = givenUp ? afterShed.slice(1) : afterShed;
  const began = rest[0] === undefined ? null : ID.exec(rest[0]);
  const state: ParkState = emptyParkState(position);
  if (lostBefore !== undefined) state.lostBefore = lostBefore;
  if (shedBefore !== undefined) state.shedBefore = shedBefore;
  if (givenUpBefore !== undefined) state.givenUpBefore = givenUpBefore;
  if (began) state.id = began[1]!;
  const afterId = began ? rest.slice(1) : rest;
  let entriesFrom = 0;
  for (let ran = RAN_REPLAY.exec(afterId[0] ?? ''); ran; ran = RAN_REPLAY.exec(afterId[++entriesFrom] ?? '')) {
    markRanUnjudged(state, ran[3]!, { tier: parseInt(ran[1]!, 36), offset: base36(ran[2]!) });
  }
  for (const entry of afterId.slice(entriesFrom)) {
    const match = ENTRY.exec(entry);
    if (!match) return undefined;
    const [, hash, holder, retryId, parked] = match;
    const distances = [...(holder === undefined ? [] : [holder]), ...(parked?.split(',') ?? [])].map(base36);
    // Every parked record is below the position, every hold below it or, a replayed record's retry's, at it (holdOffsetOf); all at or after offset 0.
    const holdAtPosition = holder !== undefined && retryId !== undefined && distances[0] === 0n;
    if (distances.some((d, i) => (d < 1n && !(i === 0 && holdAtPosition)) || d > state.position)) return undefined;
    const offsets = distances.map((d) => state.position - d);
    if (holder !== undefined) takeHold(state, hash!, offsets[0]!, retryId);
    for (const o of offsets.slice(holder === undefined ? 0 : 1)) state.parked.set(o, hash!);
  }
  // Anything the encoder would not have written for this state (a truncated state, a
  // wrong distance, repeats, order) is not ours to trust.
  return [format, ...stateFields(state), ...(format === PARK_STATE_FORMAT ? [END] : [])].join(' ') === text && committedOffsetOf(state) === committed ? state : undefined;
}
