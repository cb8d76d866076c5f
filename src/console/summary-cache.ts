import type { ConsumerModel } from '../model/types';
import type { ConsoleDlq } from './backend';
import { filterQuery } from './filter';
import type { RecordFilter } from './filter';
import { summaryTally } from './scan';
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
}

/** Filters remembered per console; the oldest is forgotten first. */
const MAX_ENTRIES = 64;

const grewFrom = (before: ReadonlyMap<number, bigint>, now: ReadonlyMap<number, bigint>) =>
  [...before].every(([p, end]) => (now.get(p) ?? -1n) >= end);

/**
 * The console's summaries (counts, groups, oldest unhandled) per consumer and filter, each
 * kept with the ends and the handled state it was counted at. Asked again, it reads only
 * what the DLQ gained past those ends while nothing was replayed, discarded or deleted by
 * retention, and counts everything again otherwise. One count per consumer and filter runs
 * at a time; a second request waits for it.
 */
export function summaryCache(dlq: ConsoleDlq, now: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  const running = new Map<string, Promise<Entry>>();

  const count = async (consumer: ConsumerModel, filter: RecordFilter, cached: Entry | undefined): Promise<Entry> => {
    if (cached) {
      const tally = cached.tally.carryOn();
      const carried = await dlq.read(consumer, tally.keep, (s) => s, { from: (p) => cached.ends.get(p) ?? 0n });
      if (carried.handledVersion === cached.handledVersion && grewFrom(cached.ends, carried.ends)) {
        return { summary: tally.summary(), ends: carried.ends, at: now(), handledVersion: carried.handledVersion, tally };
      }
    }
    const tally = summaryTally(filter);
    const read = await dlq.read(consumer, tally.keep, (s) => s);
    return { summary: tally.summary(), ends: read.ends, at: now(), handledVersion: read.handledVersion, tally };
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
