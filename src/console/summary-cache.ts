import type { ConsumerModel } from '../model/types';
import type { ConsoleDlq } from './backend';
import { filterQuery } from './filter';
import type { RecordFilter } from './filter';
import { summaryTally } from './scan';
import { bothWitnesses, carriedFrom, lastMarks, sameLogAs } from './log-marks';
import type { LogMark } from './log-marks';
import type { DlqRecord } from '../dlq/session';
import type { Summary, SummaryTally } from './scan';

/** A summary and the DLQ it counted: the ends it read to, the handled version it read at. */
export interface CountedSummary {
  readonly summary: Summary;
  readonly ends: ReadonlyMap<number, bigint>;
  /** When it was last brought up to date (epoch ms). */
  readonly at: number;
}

interface Entry extends CountedSummary {
  readonly handledVersion: string;
  readonly tally: SummaryTally;
  /** The last record read of each partition: a carried count finds it again, or counts again (sameLogAs). */
  readonly marks: ReadonlyMap<number, LogMark>;
}

/** Filters remembered per console; the oldest is forgotten first. */
const MAX_ENTRIES = 64;

const grewFrom = (before: ReadonlyMap<number, bigint>, now: ReadonlyMap<number, bigint>) =>
  [...before].every(([p, end]) => (now.get(p) ?? -1n) >= end);

/**
 * The console's summaries (counts, groups, oldest unhandled) per consumer and filter, each
 * kept with the ends, the handled state and the last record it was counted at. Asked again,
 * it reads only what the DLQ gained past those ends (and that last record, to know the log is
 * the one it counted) while nothing was replayed, discarded or deleted by retention and the
 * topic was not made again, and counts everything again otherwise. One count per consumer and filter runs
 * at a time; a second request waits for it.
 */
export function summaryCache(dlq: ConsoleDlq, now: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  const running = new Map<string, Promise<Entry>>();

  const count = async (consumer: ConsumerModel, filter: RecordFilter, cached: Entry | undefined): Promise<Entry> => {
    if (cached) {
      const tally = cached.tally.carryOn();
      const last = lastMarks();
      const same = sameLogAs(cached.marks, cached.ends);
      // From the last record counted, read again to tell its log from a new one; counted from the old ends on.
      const counted = (r: DlqRecord) => r.offset < (cached.ends.get(r.partition) ?? 0n);
      const carried = await dlq.read(consumer, (r) => !counted(r) && tally.keep(r), (s) => s, {
        from: carriedFrom(cached.marks),
        witness: bothWitnesses(last.witness, same.witness),
      });
      if (carried.handledVersion === cached.handledVersion && grewFrom(cached.ends, carried.ends) && same.sameLog()) {
        return { summary: tally.summary(), ends: carried.ends, at: now(), handledVersion: carried.handledVersion, tally, marks: new Map([...cached.marks, ...last.marks]) };
      }
    }
    const tally = summaryTally(filter);
    const last = lastMarks();
    const read = await dlq.read(consumer, tally.keep, (s) => s, { witness: last.witness });
    return { summary: tally.summary(), ends: read.ends, at: now(), handledVersion: read.handledVersion, tally, marks: last.marks };
  };

  return {
    async summary(consumer: ConsumerModel, filter: RecordFilter): Promise<CountedSummary> {
      const key = `${consumer.name}\u0000${JSON.stringify(filterQuery(filter))}`;
      let pending = running.get(key);
      if (!pending) {
        pending = count(consumer, filter, entries.get(key));
        running.set(key, pending);
        void pending.then(
          (entry) => {
            entries.delete(key);
            entries.set(key, entry);
            if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
          },
          () => undefined,
        ).finally(() => running.delete(key));
      }
      return pending;
    },
  };
}
export type SummaryCache = ReturnType<typeof summaryCache>;
