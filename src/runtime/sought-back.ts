/*
 * Park-by-key seeks main partition p back to confirm what it read (a parked record missing from
 * the log, records between the state's position and the first record read): a record read
 * past the offset sought is then taken as evidence. But a seek can take effect late: librdkafka
 * waits 1 s for the partition's fetcher, then the Confluent client only logs the time-out while
 * the seek still takes effect later, and the records fetched before it keep coming meanwhile.
 * Taken as evidence, they gave up a parked record still in the log, or passed records never
 * run. So a record counts only if it is below where the client had read when the seek was
 * asked for (an applied seek reads the first record at or past the offset, which is no further
 * than the record that asked for it); past that, it may be one fetched before the seek, and p
 * is sought again now and then, until SEEK_CONFIRM_MS says every record from the offset up to
 * there is gone (compaction, transaction markers).
 */

/** How long records past where the client had read are waited through before they count. */
export const SEEK_CONFIRM_MS = 10_000;
/** How often p is sought again meanwhile (a seek lost, not late). */
export const SEEK_AGAIN_MS = 500;

/** A seek of p back to `at`, asked for by the record at `readTo - 1`. */
export interface SoughtBack {
  readonly at: bigint;
  readonly readTo: bigint;
  readonly since: number;
  readonly lastSeek: number;
}

/**
 * What a record read at `offset` past `at` says, with `sought` the seek back to it so far:
 * `seek` (none yet: seek to `at`), `past` (the seek took effect and the client still reads past
 * `at`: what is missing there is gone), `wait` (not evidence: the record is not taken) or
 * `seek again` (the same, and it is time to seek again). `next`: the seek to keep.
 */
export function judgeSoughtBack(sought: SoughtBack | undefined, at: bigint, offset: bigint, now: number): { verdict: 'seek' | 'past' | 'wait' | 'seek again'; next: SoughtBack | undefined } {
  if (sought === undefined || sought.at !== at) return { verdict: 'seek', next: { at, readTo: offset + 1n, since: now, lastSeek: now } };
  if (offset < sought.readTo || now - sought.since >= SEEK_CONFIRM_MS) return { verdict: 'past', next: undefined };
  if (now - sought.lastSeek >= SEEK_AGAIN_MS) return { verdict: 'seek again', next: { ...sought, lastSeek: now } };
  return { verdict: 'wait', next: sought };
}
