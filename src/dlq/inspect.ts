import { isUtf8 } from 'node:buffer';
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

/** Unhandled records grouped by x-error-class and original topic, largest group first. */
export function groupRecords(records: readonly DlqRecord[]): InspectGroup[] {
  const groups = new Map<string, DlqRecord[]>();
  for (const r of records) {
    const key = `${r.decoded.errorClass ?? '(none)'}\u0000${r.decoded.originalTopic ?? '(unknown)'}`;
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return [...groups]
    .map(([key, list]) => {
      const [errorClass, originalTopic] = key.split('\u0000');
      let oldest = Infinity;
      let newest = -Infinity;
      for (const r of list) {
        oldest = Math.min(oldest, r.timestamp);
        newest = Math.max(newest, r.timestamp);
      }
      return {
        errorClass: errorClass!,
        originalTopic: originalTopic!,
        count: list.length,
        oldest: new Date(oldest).toISOString(),
        newest: new Date(newest).toISOString(),
        replayedBefore: list.filter((r) => r.replayCount > 0).length,
        ids: list.map((r) => r.id),
        example: list[0]!.decoded.errorMessage ?? '',
      };
    })
    .sort((a, b) => b.count - a.count || (a.errorClass < b.errorClass ? -1 : 1));
}

/** A key or value as JSON carries it: UTF-8 text when it is valid UTF-8, base64 otherwise. */
export function encodedBytes(bytes: Buffer | null): { text: string | null; encoding: 'utf8' | 'base64' | null } {
  if (bytes === null) return { text: null, encoding: null };
  return isUtf8(bytes) ? { text: bytes.toString('utf8'), encoding: 'utf8' } : { text: bytes.toString('base64'), encoding: 'base64' };
}

/** A record as `--json` prints it: headers decoded, key and value with their encoding. */
export function recordJson(r: DlqRecord) {
  const key = encodedBytes(r.key);
  const value = encodedBytes(r.value);
  return {
    id: r.id,
    partition: r.partition,
    offset: r.offset.toString(),
    timestamp: new Date(r.timestamp).toISOString(),
    key: key.text,
    keyEncoding: key.encoding,
    value: value.text,
    valueEncoding: value.encoding,
    attempt: r.decoded.attempt ?? null,
    replayCount: r.replayCount,
    errorClass: r.decoded.errorClass ?? null,
    errorMessage: r.decoded.errorMessage ?? null,
    originalTopic: r.decoded.originalTopic ?? null,
    originalPartition: r.decoded.originalPartition ?? null,
    originalOffset: r.decoded.originalOffset ?? null,
    originalTimestamp: r.decoded.originalTimestamp !== undefined ? new Date(r.decoded.originalTimestamp).toISOString() : null,
    firstFailedAt: r.decoded.firstFailedAt !== undefined ? new Date(r.decoded.firstFailedAt).toISOString() : null,
  };
}

/** A key or value for one line of text: as is when it is UTF-8, marked base64 otherwise. */
export function bytesText(bytes: Buffer | null): string {
  const { text, encoding } = encodedBytes(bytes);
  return text === null ? '-' : encoding === 'base64' ? `base64:${text}` : text;
}
