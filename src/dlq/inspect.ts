import { isUtf8 } from 'node:buffer';
import { confluentSchemaId } from './schema-id';
import { isoTimeOf } from '../runtime/headers';
import type { DlqRecord } from './session';

export interface InspectGroup {
  readonly errorClass: string;
  readonly originalTopic: string;
  readonly count: number;
  readonly oldest: string;
  readonly newest: string;
  /** Records of the group that were replayed before and came back. */
  readonly replayedBefore: number;
  readonly ids: readonly string[];
  readonly example: string;
}

interface GroupTally {
  readonly errorClass: string;
  readonly originalTopic: string;
  count: number;
  oldest: number;
  newest: number;
  replayedBefore: number;
  readonly ids: string[];
  readonly example: string;
}

/** The most groups a tally keeps apart: past it, records of new groups are counted together, so distinct error names cannot grow memory without bound. */
export const MAX_GROUPS = 1000;
/** Error names, topics and example messages longer than this are cut in groups (the records keep them whole). */
const MAX_GROUP_TEXT = 500;
export const OTHER_GROUPS = '(other error names)';

const clipped = (text: string) => (text.length > MAX_GROUP_TEXT ? `${text.slice(0, MAX_GROUP_TEXT)}…` : text);

/**
 * Groups by x-error-class and original topic, built one record at a time, so a caller
 * can group a DLQ it does not hold; without `ids`, a group's memory does not grow with it,
 * and at most MAX_GROUPS groups (and one of the rest) are kept, whatever producers wrote.
 */
export function recordGroups(options: { readonly ids: boolean } = { ids: true }, from?: ReadonlyMap<string, GroupTally>) {
  const tallies = new Map<string, GroupTally>([...(from ?? [])].map(([key, t]) => [key, { ...t, ids: [...t.ids] }]));
  return {
    /** An independent copy, to carry a count on without touching this one. */
    copy: () => recordGroups(options, tallies),
    size: () => tallies.size,
    add(r: DlqRecord): void {
      let errorClass = clipped(r.decoded.errorClass ?? '(none)');
      let originalTopic = clipped(r.decoded.originalTopic ?? '(unknown)');
      let key = `${errorClass}\u0000${originalTopic}`;
      if (!tallies.has(key) && tallies.size >= MAX_GROUPS) {
        errorClass = OTHER_GROUPS;
        originalTopic = '(any)';
        key = `${errorClass}\u0000${originalTopic}`;
      }
      let tally = tallies.get(key);
      if (!tally) {
        tally = { errorClass, originalTopic, count: 0, oldest: Infinity, newest: -Infinity, replayedBefore: 0, ids: [], example: clipped(r.decoded.errorMessage ?? '') };
        tallies.set(key, tally);
      }
      tally.count++;
      tally.oldest = Math.min(tally.oldest, r.timestamp);
      tally.newest = Math.max(tally.newest, r.timestamp);
      if (r.replayCount > 0) tally.replayedBefore++;
      if (options.ids) tally.ids.push(r.id);
    },
    /** Largest group first. */
    groups(): InspectGroup[] {
      return [...tallies.values()]
        .map((t) => ({ errorClass: t.errorClass, originalTopic: t.originalTopic, count: t.count, oldest: isoTimeOf(t.oldest) ?? String(t.oldest), newest: isoTimeOf(t.newest) ?? String(t.newest), replayedBefore: t.replayedBefore, ids: t.ids, example: t.example }))
        .sort((a, b) => b.count - a.count || (a.errorClass < b.errorClass ? -1 : 1));
    },
  };
}

/** Unhandled records grouped by x-error-class and original topic, largest group first. */
export function groupRecords(records: readonly DlqRecord[]): InspectGroup[] {
  const groups = recordGroups();
  for (const r of records) groups.add(r);
  return groups.groups();
}

/** A key or value as JSON carries it: UTF-8 text when it is valid UTF-8 and not binary by format, base64 otherwise. */
export function encodedBytes(bytes: Buffer | null, binary = false): { text: string | null; encoding: 'utf8' | 'base64' | null } {
  if (bytes === null) return { text: null, encoding: null };
  return isUtf8(bytes) && !binary ? { text: bytes.toString('utf8'), encoding: 'utf8' } : { text: bytes.toString('base64'), encoding: 'base64' };
}

/** A record as `--json` prints it: headers decoded, key and value with their encoding. */
export function recordJson(r: DlqRecord) {
  const key = encodedBytes(r.key);
  // A Schema Registry-framed value is binary even when its bytes happen to be UTF-8.
  const schemaId = confluentSchemaId(r.value);
  const value = encodedBytes(r.value, schemaId !== undefined);
  return {
    id: r.id,
    partition: r.partition,
    offset: r.offset.toString(),
    timestamp: isoTimeOf(r.timestamp) ?? null,
    key: key.text,
    keyEncoding: key.encoding,
    value: value.text,
    valueEncoding: value.encoding,
    valueSchemaId: schemaId ?? null,
    attempt: r.decoded.attempt ?? null,
    replayCount: r.replayCount,
    errorClass: r.decoded.errorClass ?? null,
    errorMessage: r.decoded.errorMessage ?? null,
    originalTopic: r.decoded.originalTopic ?? null,
    originalPartition: r.decoded.originalPartition ?? null,
    originalOffset: r.decoded.originalOffset ?? null,
    originalTimestamp: isoTimeOf(r.decoded.originalTimestamp) ?? null,
    firstFailedAt: isoTimeOf(r.decoded.firstFailedAt) ?? null,
  };
}

/** A key or value for one line of text: as is when it is UTF-8, marked base64 otherwise. */
export function bytesText(bytes: Buffer | null): string {
  const { text, encoding } = encodedBytes(bytes);
  return text === null ? '-' : encoding === 'base64' ? `base64:${text}` : text;
}
