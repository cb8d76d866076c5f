import { offsetsToCheck } from './dlq-handled-from-audit';
import { ITEMS_PER_YIELD, runSliced } from './sliced-work';
import type { SlicedWork } from './sliced-work';
import type { AuditFields } from './dlq-audit-entry';
import type { MarksRead, MonitorPort } from './monitor-port';

/** What a partition's earlier reads found: the marks of its records in [from, to). */
interface Checked {
  readonly from: bigint;
  to: bigint;
  readonly marks: Map<bigint, string>;
  /** The highest offset in marks: the witness. */
  last?: bigint;
}

type Ranges = Map<number, { from: bigint; to: bigint }>;

/**
 * The marks of the DLQ records the audit entries name (offsetsToCheck), for the fold to leave
 * out an entry about a record of a DLQ deleted and created again under its name, as the DLQ
 * sessions do. What a poll read is kept per partition, so the next reads only the records
 * named since, and the last record it read (the witness): a witness with another mark, or
 * none, or a DLQ that ended below it, says the log is another one, whose marks are read again.
 */
export function createMarkCheck(port: MonitorPort, dlqTopic: string) {
  const checked = new Map<number, Checked>();
  let version = 0;

  /** Reads the ranges and keeps what was read; gives what the read found. */
  async function read(ranges: Ranges, signal?: AbortSignal): Promise<MarksRead> {
    const got = await port.marksAt!(dlqTopic, ranges, signal);
    // Sliced: a first poll reads a mark per audit entry, a year of them.
    await runSliced(kept(ranges, got), signal);
    return got;
  }

  function* kept(ranges: Ranges, got: MarksRead): SlicedWork<void> {
    let n = 0;
    for (const [partition, range] of ranges) {
      const readTo = got.readTo.get(partition) ?? range.from;
      const c = checked.get(partition) ?? { from: range.from, to: range.from, marks: new Map<bigint, string>() };
      for (const [offset, mark] of got.marks.get(partition) ?? []) {
        if (++n % ITEMS_PER_YIELD === 0) yield;
        if (c.marks.get(offset) !== mark) version += 1;
        c.marks.set(offset, mark);
        if (c.last === undefined || offset > c.last) c.last = offset;
      }
      // Further covered: a `no-records` entry there may now be taken (the fold is made again).
      if (readTo > c.to) {
        if (checked.has(partition)) version += 1;
        c.to = readTo;
      }
      checked.set(partition, c);
    }
  }

  return {
    /** Changes whenever the marks it gives may have: the fold is made again then. */
    get version(): number {
      return version;
    },
    /** The marks of the records the entries name in `partitions` and the offsets read, or undefined when the port cannot read them. */
    async marks(entries: readonly AuditFields[], partitions: readonly number[], ends: ReadonlyMap<number, bigint>, starts: ReadonlyMap<number, bigint>, signal?: AbortSignal) {
      if (!port.marksAt) return undefined;
      const wanted = await runSliced(offsetsToCheck(entries, dlqTopic, partitions, ends, starts), signal);
      const ranges: Ranges = new Map();
      const witnesses = new Map<number, { offset: bigint; mark: string }>();
      // Partitions whose last read found no record (only markers): read again, and changed only if this read finds otherwise.
      const blanks = new Map<number, Checked>();
      for (const [partition, range] of wanted) {
        const c = checked.get(partition);
        const witness = c?.last;
        // Nothing kept to go on from: an offset below what was read, a witness retention
        // deleted or past the DLQ's end now (a DLQ created again and not yet refilled), or
        // no witness at all (nothing but markers was read: a DLQ created again shows only
        // in a new read).
        if (!c || witness === undefined || range.from < c.from || witness < (starts.get(partition) ?? 0n) || witness >= (ends.get(partition) ?? 0n)) {
          if (c && witness === undefined) blanks.set(partition, c);
          else if (c) version += 1;
          checked.delete(partition);
          ranges.set(partition, range);
          continue;
        }
        witnesses.set(partition, { offset: witness, mark: c.marks.get(witness)! });
        // From the witness (the last record read; offsets read after it held none) to the last offset named, or the witness alone.
        ranges.set(partition, { from: witness, to: range.to >= c.to ? range.to : witness });
      }
      if (ranges.size > 0) {
        const got = await read(ranges, signal);
        const again: Ranges = new Map();
        for (const [partition, witness] of witnesses) {
          // A read that did not get to the witness (out of time) tells nothing of it.
          if ((got.readTo.get(partition) ?? 0n) <= witness.offset || got.marks.get(partition)?.get(witness.offset) === witness.mark) continue;
          checked.delete(partition);
          version += 1;
          again.set(partition, wanted.get(partition)!);
        }
        if (again.size > 0) await read(again, signal);
        for (const [partition, before] of blanks) {
          const now = checked.get(partition);
          if (now === undefined || now.marks.size > 0 || now.from !== before.from || now.to !== before.to) version += 1;
        }
      }
      const kept = [...wanted.keys()].flatMap((partition) => (checked.has(partition) ? [[partition, checked.get(partition)!] as const] : []));
      // What the reads covered, [from, to): an offset there without a mark holds no record (a `no-records` entry is taken only there).
      return { marks: new Map(kept.map(([partition, c]) => [partition, c.marks])), covered: new Map(kept.map(([partition, c]) => [partition, { from: c.from, to: c.to }])) };
    },
  };
}
