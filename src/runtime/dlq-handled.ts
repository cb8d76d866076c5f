import { deflateRawSync, inflateRawSync } from 'node:zlib';

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
  /** Handled offsets after `committed`: sorted, disjoint, never adjacent, all above it. */
  readonly ranges: readonly HandledRange[];
  /**
   * Unhandled records that retention deleted before the group passed them, counted when
   * a krt command committed past them: with the gap still below the log start, this is
   * the partition's whole `kafka_dlq_expired_total`, read from Kafka alone.
   */
  readonly expired: bigint;
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

export function emptyHandled(committed: bigint): HandledState {
  return { committed, ranges: [], expired: 0n };
}

/**
 * Reads the metadata a previous commit left; anything unreadable counts as nothing handled
 * beyond. The result is normalized: the committed offset is never itself handled.
 */
export function decodeHandled(committed: bigint, metadata: string | null | undefined): HandledState {
  try {
    const parsed = JSON.parse(metadata ?? '') as { f?: unknown; r?: unknown; e?: unknown };
    const expired = typeof parsed.e === 'string' && /^\d{1,19}$/.test(parsed.e) ? BigInt(parsed.e) : 0n;
    if (parsed.f === FORMAT_V1 && Array.isArray(parsed.r)) {
      const ranges = (parsed.r as unknown[]).map((pair) => {
        const [from, to] = pair as [string, string];
        return { from: BigInt(from), to: BigInt(to) };
      });
      return withRanges({ committed, ranges: [], expired }, ranges.sort((a, b) => compare(a.from, b.from)));
    }
    if (parsed.f === FORMAT_V2 && typeof parsed.r === 'string') {
      return withRanges({ committed, ranges: [], expired }, runsToRanges(committed, parsed.r));
    }
  } catch {
    // No metadata, or not ours: nothing beyond the committed offset is handled.
  }
  return emptyHandled(committed);
}

/** The commit metadata: the recorded expiry and the handled ranges beyond the committed offset. */
export function encodeHandled(state: HandledState): string {
  const bytes: number[] = [];
  let position = state.committed;
  for (const range of state.ranges) {
    writeVarint(bytes, range.from - position - 1n);
    writeVarint(bytes, range.to - range.from);
    position = range.to + 1n;
  }
  const runs = deflateRawSync(Buffer.from(bytes), { level: 9 }).toString('base64');
  return JSON.stringify({ f: FORMAT_V2, e: state.expired.toString(), r: runs });
}

/** Whether this state's metadata fits in a commit. */
export function handledFits(state: HandledState): { fits: boolean; bytes: number } {
  const bytes = Buffer.byteLength(encodeHandled(state));
  return { fits: bytes <= MAX_HANDLED_METADATA_BYTES, bytes };
}

/** Marks offsets handled: the committed offset moves over every contiguous handled record. */
export function markHandled(state: HandledState, offsets: Iterable<bigint>): HandledState {
  const sorted = [...offsets].sort(compare);
  const ranges: HandledRange[] = [];
  for (const o of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && o <= last.to + 1n) ranges[ranges.length - 1] = { from: last.from, to: o > last.to ? o : last.to };
    else ranges.push({ from: o, to: o });
  }
  return withRanges(state, ranges);
}

export function isHandled(state: HandledState, offset: bigint): boolean {
  if (offset < state.committed) return true;
  let low = 0;
  let high = state.ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const range = state.ranges[mid]!;
    if (offset < range.from) high = mid - 1;
    else if (offset > range.to) low = mid + 1;
    else return true;
  }
  return false;
}

/** Handled offsets within [from, to). */
function handledWithin(state: HandledState, from: bigint, to: bigint): bigint {
  let count = 0n;
  for (const range of state.ranges) {
    if (range.from >= to) break;
    const start = range.from > from ? range.from : from;
    const end = range.to + 1n < to ? range.to + 1n : to;
    if (end > start) count += end - start;
  }
  return count;
}

/**
 * Unhandled records below the log start that this state has not yet counted as expired:
 * retention deleted them before anyone replayed or discarded them.
 */
export function expiredGap(state: HandledState, logStart: bigint): bigint {
  if (state.committed >= logStart) return 0n;
  return logStart - state.committed - handledWithin(state, state.committed, logStart);
}

/**
 * The state once the group passes the records retention deleted: the committed offset at
 * or after the log start, and the unhandled ones among them added to `expired`.
 */
export function passExpired(state: HandledState, logStart: bigint): HandledState {
  if (state.committed >= logStart) return state;
  const expired = state.expired + expiredGap(state, logStart);
  return withRanges({ committed: logStart, ranges: [], expired }, state.ranges);
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
  return { unhandled: Number(end - live.committed - handledWithin(live, live.committed, end)), first: live.committed, expired };
}

/**
 * Merges sorted handled ranges into a state's in one linear pass, drops what is below its
 * committed offset, and moves the offset over the front.
 */
function withRanges(state: HandledState, added: readonly HandledRange[]): HandledState {
  const merged: HandledRange[] = [];
  const push = (range: HandledRange) => {
    if (range.to < range.from || range.to < state.committed) return;
    const last = merged[merged.length - 1];
    if (last && range.from <= last.to + 1n) {
      if (range.to > last.to) merged[merged.length - 1] = { from: last.from, to: range.to };
    } else {
      merged.push(range);
    }
  };
  const old = state.ranges;
  let i = 0;
  let j = 0;
  while (i < old.length || j < added.length) {
    if (j >= added.length || (i < old.length && old[i]!.from <= added[j]!.from)) push(old[i++]!);
    else push(added[j++]!);
  }
  let committed = state.committed;
  let start = 0;
  while (start < merged.length && merged[start]!.from <= committed) {
    if (merged[start]!.to + 1n > committed) committed = merged[start]!.to + 1n;
    start++;
  }
  return { committed, ranges: start === 0 ? merged : merged.slice(start), expired: state.expired };
}

function runsToRanges(committed: bigint, encoded: string): HandledRange[] {
  if (encoded === '') return [];
  const bytes = inflateRawSync(Buffer.from(encoded, 'base64'), { maxOutputLength: MAX_INFLATED_BYTES });
  const ranges: HandledRange[] = [];
  let position = committed;
  let index = 0;
  const read = (): bigint => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[index++];
      if (byte === undefined) throw new Error('truncated run length');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7n;
    }
  };
  while (index < bytes.length) {
    const from = position + read() + 1n;
    const to = from + read();
    ranges.push({ from, to });
    position = to + 1n;
  }
  return ranges;
}

function writeVarint(out: number[], value: bigint): void {
  let rest = value;
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
