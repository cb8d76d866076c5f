/*
 * Park-by-key seeks main partition p back to confirm what it read (a parked record missing from
 * the log, records between the state's position and the first record read): a record read
 * past the offset sought is then taken as evidence. That holds only once the seek took effect,
 * and the port's contract (port.ts seek: no record fetched before a seek comes after it) is all
 * that says so: the clients keep it (kafkajs drops a partition's batch and fetch responses while
 * a seek is pending; librdkafka's version barrier drops messages fetched before a seek even
 * while the seek itself applies late), but a seek can be lost, and an adapter that let records
 * fetched before a seek through gave up a parked record still in the log, or passed records a
 * lost state had parked (seen in the memory broker with such a client). So a record counts only
 * if it is below where the client had read when the seek was asked for (an applied seek reads
 * the first record at or past the offset, which is no further than the record that asked for
 * it); past that, it is not taken, p is sought again now and then (key-parking.ts, by a timer
 * too), until SEEK_CONFIRM_MS says every record from the offset up to there is gone
 * (compaction, transaction markers).
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
