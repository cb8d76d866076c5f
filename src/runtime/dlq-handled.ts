/**
 * Which DLQ records of a partition are handled (replayed or discarded). The replay
 * group's committed offset is the first unhandled record; records handled beyond it
 * (a replay by error class skips others) are listed in the commit's metadata, so the
 * state is durable in Kafka, atomic with the offset, and shared by every krt run.
 */
export interface HandledState {
  /** The first offset not yet handled. */
  readonly committed: bigint;
  /** Handled offsets at or after `committed`. */
  readonly beyond: ReadonlySet<bigint>;
}

const FORMAT = 'krt-handled/1';

/**
 * Reads the metadata a previous commit left; anything unreadable counts as nothing handled
 * beyond. The result is normalized: the committed offset is never itself listed as handled.
 */
export function decodeHandled(committed: bigint, metadata: string | null | undefined): HandledState {
  const beyond: bigint[] = [];
  try {
    const parsed = JSON.parse(metadata ?? '') as { f?: string; r?: [string, string][] };
    if (parsed.f === FORMAT) {
      for (const [from, to] of parsed.r ?? []) {
        for (let o = BigInt(from); o <= BigInt(to); o++) beyond.push(o);
      }
    }
  } catch {
    // No metadata, or not ours: nothing beyond the committed offset is handled.
  }
  return markHandled({ committed, beyond: new Set() }, beyond);
}

/** Marks offsets handled: the committed offset moves over every contiguous handled record. */
export function markHandled(state: HandledState, offsets: Iterable<bigint>): HandledState {
  const beyond = new Set(state.beyond);
  for (const o of offsets) if (o >= state.committed) beyond.add(o);
  let committed = state.committed;
  while (beyond.has(committed)) {
    beyond.delete(committed);
    committed++;
  }
  return { committed, beyond };
}

/** The commit metadata: handled offsets beyond the committed one, as ranges. */
export function encodeHandled(state: HandledState): string {
  const sorted = [...state.beyond].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ranges: [string, string][] = [];
  for (const o of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && BigInt(last[1]) + 1n === o) last[1] = o.toString();
    else ranges.push([o.toString(), o.toString()]);
  }
  return JSON.stringify({ f: FORMAT, r: ranges });
}

/**
 * How many records before `end` are unhandled, and the first of them: without walking the
 * backlog, since only the handled records beyond the committed offset are listed.
 */
export function unhandledBefore(state: HandledState, end: bigint): { count: number; first?: bigint } {
  if (state.committed >= end) return { count: 0 };
  const handled = [...state.beyond].filter((o) => o < end).length;
  return { count: Number(end - state.committed) - handled, first: state.committed };
}

export function isHandled(state: HandledState, offset: bigint): boolean {
  return offset < state.committed || state.beyond.has(offset);
}
