import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ITEMS_PER_YIELD, runNow } from './sliced-work';
import type { SlicedWork } from './sliced-work';

/**
 * Which DLQ records of a partition are handled (replayed or discarded). The replay
 * group's committed offset is the first unhandled record; records handled beyond it
 * (a replay by error class skips others) are listed in the commit's metadata, so the
 * state is durable in Kafka, atomic with the offset, and shared by every krt run.
 *
 * Every operation costs time in the number of ranges, never in the number of offsets
 * they cover: `[1, 2000000]` is one range.
 */
export interface HandledRange {
  readonly from: bigint;
  /** Inclusive. */
  readonly to: bigint;
}

export interface HandledState {
  /** The first offset not yet handled. */
  readonly committed: bigint;
  /**
   * Handled offsets after `committed`, as distances from it: `[from, to, from, to, ...]`
   * (inclusive), sorted, disjoint, never adjacent, every `from` above 0. Plain numbers,
   * not bigints or objects: a million ranges decode in milliseconds on every monitor poll
   * and session open, and no partition holds 2^53 records beyond its committed offset.
   */
  readonly runs: Float64Array;
  /**
   * Unhandled records that retention deleted before the group passed them, counted when
   * a krt command committed past them: with the gap still below the log start, this is
   * the partition's whole `kafka_dlq_expired_total`, read from Kafka alone.
   */
  readonly expired: bigint;
  /**
   * Handled ranges farther than 2^53 from the committed offset, as offsets: no partition
   * reaches them today, but metadata that names one (the previous release wrote bigints)
   * is read exactly, never dropped with the near ranges. Absent when there are none.
   */
  readonly far?: readonly HandledRange[];
}

/**
 * Kafka refuses commit metadata beyond `offset.metadata.max.bytes` (4096 by default); a
 * handled state that does not fit is refused before anything is published.
 */
export const MAX_HANDLED_METADATA_BYTES = 4000;

/** Ranges as JSON pairs of decimal strings; still read, no longer written. */
const FORMAT_V1 = 'krt-handled/1';
/**
 * Alternating run lengths from the committed offset (unhandled, handled, unhandled, ...,
 * each minus one) as LEB128 varints, deflated and in base64: a replay of one error class
 * out of interleaved ones repeats a pattern that deflate shrinks to a few bytes.
 */
const FORMAT_V2 = 'krt-handled/2';
/** Inflating a few kilobytes of metadata never needs more; anything larger is not ours. */
const MAX_INFLATED_BYTES = 64 * 2 ** 20;
const MAX_DISTANCE = Number.MAX_SAFE_INTEGER;
/** MAX_DISTANCE as a bigint, made once: isHandled and markHandled compare against it per offset. */
const MAX_DISTANCE_BIG = BigInt(MAX_DISTANCE);

export function emptyHandled(committed: bigint, expired = 0n): HandledState {
  return { committed, runs: new Float64Array(0), expired };
}

/** The handled ranges beyond the committed offset, as offsets. */
export function handledRanges(state: HandledState): HandledRange[] {
  const ranges: HandledRange[] = [];
  for (let i = 0; i < state.runs.length; i += 2) ranges.push({ from: state.committed + BigInt(state.runs[i]!), to: state.committed + BigInt(state.runs[i + 1]!) });
  return [...ranges, ...(state.far ?? [])];
}

/** How many ranges are handled beyond the committed offset. */
export function rangeCount(state: HandledState): number {
  return state.runs.length / 2 + (state.far?.length ?? 0);
}

/**
 * Reads the metadata a previous commit left; anything unreadable counts as nothing handled
 * beyond. The result is normalized: the committed offset is never itself handled.
 */
export function decodeHandled(committed: bigint, metadata: string | null | undefined): HandledState {
  try {
    const parsed = JSON.parse(metadata ?? '') as { f?: unknown; r?: unknown; e?: unknown; x?: unknown };
    const expired = typeof parsed.e === 'string' && /^\d{1,19}$/.test(parsed.e) ? BigInt(parsed.e) : 0n;
    if (parsed.f === FORMAT_V1 && Array.isArray(parsed.r)) {
      const ranges = (parsed.r as unknown[]).map((pair) => {
        const [from, to] = (pair as [string, string]).map((o) => BigInt(o));
        return { from: from!, to: to! };
      });
      return withRanges(emptyHandled(committed, expired), ranges);
    }
    if (parsed.f === FORMAT_V2 && typeof parsed.r === 'string') {
      const far = Array.isArray(parsed.x) ? (parsed.x as [string, string][]).map(([from, to]) => ({ from: BigInt(from), to: BigInt(to) })) : [];
      const state = { committed, runs: decodeRuns(parsed.r), expired };
      return far.length === 0 ? state : withRanges(state, far);
    }
  } catch {
    // No metadata, or not ours: nothing beyond the committed offset is handled.
  }
  return emptyHandled(committed);
}

/**
 * The state with these ranges (offsets, any order, possibly overlapping or below the
 * committed offset) handled too: those within 2^53 of the committed offset as runs, the
 * rest exactly as bigint ranges in `far`; far ranges the committed offset has come near
 * move into the runs. Never throws.
 */
export function withRanges(state: HandledState, ranges: readonly HandledRange[]): HandledState {
  let current = state;
  let pending = [...(state.far ?? []), ...ranges];
  for (;;) {
    const reach = current.committed + MAX_DISTANCE_BIG;
    const near: number[] = [];
    const far: HandledRange[] = [];
    for (const r of pending) {
      if (r.to < current.committed || r.to < r.from) continue;
      const from = r.from < current.committed ? current.committed : r.from;
      if (from > reach) far.push({ from, to: r.to });
      else {
        near.push(Number(from - current.committed), Number((r.to > reach ? reach : r.to) - current.committed));
        if (r.to > reach) far.push({ from: reach + 1n, to: r.to });
      }
    }
    const pairs: [number, number][] = [];
    for (let i = 0; i < near.length; i += 2) pairs.push([near[i]!, near[i + 1]!]);
    pairs.sort((a, b) => a[0] - b[0]);
    const next = normalized(current.committed, merge(current.runs, pairs.flat()), current.expired);
    const moved = next.committed !== current.committed;
    current = next;
    pending = far;
    // The committed offset moved: far ranges may now be near.
    if (!moved || far.length === 0) break;
  }
  return pending.length === 0 ? current : { ...current, far: mergedRanges(pending) };
}

/** Sorted, disjoint, non-adjacent ranges. */
function mergedRanges(ranges: readonly HandledRange[]): HandledRange[] {
  const sorted = [...ranges].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const out: HandledRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.from <= last.to + 1n) out[out.length - 1] = { from: last.from, to: r.to > last.to ? r.to : last.to };
    else out.push(r);
  }
  return out;
}

/** The commit metadata: the recorded expiry and the handled ranges beyond the committed offset. */
export function encodeHandled(state: HandledState): string {
  const { runs } = state;
  const bytes = Buffer.allocUnsafe(runs.length * 8);
  let length = 0;
  const write = (value: number) => {
    let rest = value;
    while (rest >= 0x80) {
      bytes[length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    bytes[length++] = rest;
  };
  let position = 0;
  for (let i = 0; i < runs.length; i += 2) {
    write(runs[i]! - position - 1);
    write(runs[i + 1]! - runs[i]!);
    position = runs[i + 1]! + 1;
  }
  const encoded = deflateRawSync(bytes.subarray(0, length), { level: 9 }).toString('base64');
  const far = state.far?.length ? { x: state.far.map((r) => [r.from.toString(), r.to.toString()]) } : {};
  return JSON.stringify({ f: FORMAT_V2, e: state.expired.toString(), r: encoded, ...far });
}

/** Whether this state's metadata fits in a commit. */
export function handledFits(state: HandledState): { fits: boolean; bytes: number } {
  const bytes = Buffer.byteLength(encodeHandled(state));
  return { fits: bytes <= MAX_HANDLED_METADATA_BYTES, bytes };
}

/** Marks offsets handled: the committed offset moves over every contiguous handled record. */
export function markHandled(state: HandledState, offsets: Iterable<bigint>): HandledState {
  return runNow(markHandledSliced(state, offsets));
}

/** markHandled as sliced work (sliced-work.ts), for the audit-log fold of a monitor or console. */
export function* markHandledSliced(state: HandledState, offsets: Iterable<bigint>): SlicedWork<HandledState> {
  const added: number[] = [];
  const far: HandledRange[] = [];
  let n = 0;
  for (const o of offsets) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    if (o < state.committed) continue;
    if (o - state.committed > MAX_DISTANCE_BIG) far.push({ from: o, to: o });
    else added.push(Number(o - state.committed));
  }
  yield;
  added.sort((a, b) => a - b);
  yield;
  const runs: number[] = [];
  for (const d of added) {
    if (++n % ITEMS_PER_YIELD === 0) yield;
    const last = runs.length - 1;
    if (last > 0 && d <= runs[last]! + 1) runs[last] = Math.max(runs[last]!, d);
    else runs.push(d, d);
  }
  const near = normalized(state.committed, merge(state.runs, runs), state.expired);
  return far.length === 0 && !state.far?.length && near.committed === state.committed ? near : withRanges({ ...near, far: state.far }, far);
}

/**
 * Offsets that hold no record (transaction markers, aborted records: no consumer ever sees
 * them) count as handled once a handled offset or the committed offset borders them:
 * without this a marker would hold the committed offset, and every gauge, for good. Ranges
 * bordered by unhandled records on both sides stay as they are, so the state never grows.
 */
export function absorbNoRecordOffsets(state: HandledState, noRecords: readonly HandledRange[]): HandledState {
  const bordered = borderedNoRecords(state, noRecords);
  return bordered.length === 0 ? state : withRanges(state, bordered);
}

/** A range of offsets holding no record, and the handled offset next to it that lets a commit pass it. */
export interface BorderedRange extends HandledRange {
  /** `from - 1` or `to + 1`: handled in the state the range was absorbed into. */
  readonly border: bigint;
}

/**
 * The no-record ranges absorbNoRecordOffsets absorbs into this state (merged, those reaching
 * past the committed offset and bordered by a handled offset), each with the handled offset
 * that borders it: what a step's audit writes, so a state rebuilt from the audit log absorbs
 * them by the same rule (dlq-handled-from-audit.ts).
 */
export function borderedNoRecords(state: HandledState, noRecords: readonly HandledRange[]): BorderedRange[] {
  if (noRecords.length === 0) return [];
  const bordered: BorderedRange[] = [];
  for (const r of mergedRanges(noRecords)) {
    if (r.to < state.committed) continue;
    if (isHandled(state, r.from - 1n)) bordered.push({ ...r, border: r.from - 1n });
    else if (isHandled(state, r.to + 1n)) bordered.push({ ...r, border: r.to + 1n });
  }
  return bordered;
}

/** Every handled offset of either state: what a commit must keep whoever wrote the other one. */
export function unionHandled(a: HandledState, b: HandledState): HandledState {
  const [low, high] = a.committed <= b.committed ? [a, b] : [b, a];
  const expiredMax = a.expired > b.expired ? a.expired : b.expired;
  if (high.committed - low.committed > MAX_DISTANCE_BIG || low.far?.length || high.far?.length) {
    // Beyond what the runs reach: exactly, through ranges.
    const front = high.committed > low.committed ? [{ from: low.committed, to: high.committed - 1n }] : [];
    return withRanges({ ...low, far: undefined, expired: expiredMax }, [...(low.far ?? []), ...front, ...handledRanges(high)]);
  }
  const shift = Number(high.committed - low.committed);
  // Everything below the higher committed offset is handled in that state.
  const front = shift > 0 ? [0, shift - 1] : [];
  const shifted = Array.from(high.runs, (d) => d + shift);
  const expired = a.expired > b.expired ? a.expired : b.expired;
  return normalized(low.committed, merge(merge(low.runs, front), shifted), expired);
}

/** Whether every offset `before` marks handled is handled in `after` too. */
export function keepsHandled(before: HandledState, after: HandledState): boolean {
  const union = unionHandled(before, after);
  const sameFar = (union.far ?? []).length === (after.far ?? []).length && (union.far ?? []).every((r, i) => r.from === after.far![i]!.from && r.to === after.far![i]!.to);
  return union.committed === after.committed && union.runs.length === after.runs.length && union.runs.every((d, i) => d === after.runs[i]) && sameFar;
}

export function isHandled(state: HandledState, offset: bigint): boolean {
  if (offset < state.committed) return true;
  const d = offset - state.committed;
  if (d > MAX_DISTANCE_BIG) return (state.far ?? []).some((r) => r.from <= offset && offset <= r.to);
  const target = Number(d);
  const { runs } = state;
  let low = 0;
  let high = runs.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (target < runs[2 * mid]!) high = mid - 1;
    else if (target > runs[2 * mid + 1]!) low = mid + 1;
    else return true;
  }
  return false;
}

/** Handled distances within [0, to): the ranges are sorted, so the walk stops at `to`. */
function handledBelow(runs: Float64Array, to: number): number {
  let count = 0;
  const length = runs.length;
  for (let i = 0; i < length; i += 2) {
    const from = runs[i]!;
    if (from >= to) break;
    const end = runs[i + 1]! + 1;
    count += (end < to ? end : to) - from;
  }
  return count;
}

/** A bigint distance clamped to what the ranges can reach. */
const clamped = (d: bigint) => (d > BigInt(MAX_DISTANCE) ? MAX_DISTANCE : Number(d));

/**
 * Unhandled records below the log start that this state has not yet counted as expired:
 * retention deleted them before anyone replayed or discarded them.
 */
export function expiredGap(state: HandledState, logStart: bigint): bigint {
  if (state.committed >= logStart) return 0n;
  return logStart - state.committed - BigInt(handledBelow(state.runs, clamped(logStart - state.committed)));
}

/**
 * The state once the group passes the records retention deleted: the committed offset at
 * or after the log start, and the unhandled ones among them added to `expired`.
 */
export function passExpired(state: HandledState, logStart: bigint): HandledState {
  if (state.committed >= logStart) return state;
  const expired = state.expired + expiredGap(state, logStart);
  const shift = clamped(logStart - state.committed);
  const runs: number[] = [];
  for (let i = 0; i < state.runs.length; i += 2) {
    if (state.runs[i + 1]! < shift) continue;
    runs.push(Math.max(state.runs[i]!, shift) - shift, state.runs[i + 1]! - shift);
  }
  const passed = normalized(logStart, runs, expired);
  return state.far?.length ? withRanges(passed, state.far) : passed;
}

export interface PartitionBacklog {
  /** Unhandled records still in the log. */
  readonly unhandled: number;
  /** The oldest of them, if any. */
  readonly first?: bigint;
  /** Unhandled records retention deleted: those already recorded plus the gap below the log start. */
  readonly expired: number;
}

/** What is left to handle in a partition between its log start and its end, without walking the records. */
export function partitionBacklog(state: HandledState, logStart: bigint, end: bigint): PartitionBacklog {
  const live = passExpired(state, logStart);
  const expired = Number(live.expired);
  if (live.committed >= end) return { unhandled: 0, expired };
  const span = end - live.committed;
  return { unhandled: Number(span - BigInt(handledBelow(live.runs, clamped(span)))), first: live.committed, expired };
}

/** Two sorted lists of ranges as one, sorted by start (they may overlap or touch). */
function merge(a: ArrayLike<number>, b: ArrayLike<number>): ArrayLike<number> {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) out.push(a[i++]!, a[i++]!);
    else out.push(b[j++]!, b[j++]!);
  }
  return out;
}

/**
 * Sorted ranges (distances from `committed`, possibly overlapping, touching, or reaching
 * below it) as a state: merged in one pass, the committed offset moved over the front.
 */
function normalized(committed: bigint, sorted: ArrayLike<number>, expired: bigint): HandledState {
  const merged: number[] = [];
  for (let i = 0; i < sorted.length; i += 2) {
    const from = Math.max(sorted[i]!, 0);
    const to = sorted[i + 1]!;
    if (to < from) continue;
    const last = merged.length - 1;
    if (last > 0 && from <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, to);
    else merged.push(from, to);
  }
  if (merged.length === 0 || merged[0] !== 0) return { committed, runs: Float64Array.from(merged), expired };
  const shift = merged[1]! + 1;
  const runs = new Float64Array(merged.length - 2);
  for (let i = 2; i < merged.length; i++) runs[i - 2] = merged[i]! - shift;
  return { committed: committed + BigInt(shift), runs, expired };
}

function decodeRuns(encoded: string): Float64Array {
  if (encoded === '') return new Float64Array(0);
  const bytes = inflateRawSync(Buffer.from(encoded, 'base64'), { maxOutputLength: MAX_INFLATED_BYTES });
  // Every varint takes at least one byte: the bytes bound the number of run lengths.
  const runs = new Float64Array(bytes.length + (bytes.length % 2));
  let count = 0;
  let position = 0;
  let index = 0;
  while (index < bytes.length) {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[index++];
      if (byte === undefined) throw new RangeError('truncated run length');
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      scale *= 0x80;
      if (scale > MAX_DISTANCE) throw new RangeError('a run longer than a partition');
    }
    // Even run lengths are the unhandled gaps before a range, odd ones the ranges.
    if (count % 2 === 0) runs[count++] = position + value + 1;
    else {
      runs[count] = runs[count - 1]! + value;
      position = runs[count++]! + 1;
    }
  }
  if (count % 2 !== 0 || position - 1 > MAX_DISTANCE) throw new RangeError('truncated runs');
  return runs.subarray(0, count);
}

/** A consumer group's commit of one partition, as kafkajs's admin fetchOffsets gives it. */
export interface PartitionCommit {
  readonly partition: number;
  readonly offset: string;
  readonly metadata: string | null;
}

/**
 * The partitions the replay group has a commit for, by partition: kafkajs gives a partition
 * without one the offset -1, which is no handled state (the DLQ tools and the monitor then
 * read the audit log for it). One reading for both, so they agree on which have none.
 */
export function committedByPartition<C extends PartitionCommit>(commits: readonly C[]): Map<number, C> {
  return new Map(commits.filter((c) => /^\d+$/.test(c.offset)).map((c) => [c.partition, c]));
}
