import type { DlqRecord } from './session';

export interface InspectGroup {
  readonly errorClass: string;
  readonly originalTopic: string;
  readonly count: number;
  readonly oldest: string;
  readonly newest: string;
  readonly ids: readonly string[];
  readonly example: string;
}

/** Unhandled records grouped by x-error-class and original topic, largest group first. */
export function groupRecords(records: readonly DlqRecord[]): InspectGroup[] {
  const groups = new Map<string, DlqRecord[]>();
  for (const r of records) {
    const key = `${r.decoded.errorClass ?? '(none)'}\u0000${r.decoded.originalTopic ?? '(unknown)'}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups]
    .map(([key, list]) => {
      const [errorClass, originalTopic] = key.split('\u0000');
      const times = list.map((r) => r.timestamp).sort((a, b) => a - b);
      return {
        errorClass: errorClass!,
        originalTopic: originalTopic!,
        count: list.length,
        oldest: new Date(times[0]!).toISOString(),
        newest: new Date(times[times.length - 1]!).toISOString(),
        ids: list.map((r) => r.id),
        example: list[0]!.decoded.errorMessage ?? '',
      };
    })
    .sort((a, b) => b.count - a.count || (a.errorClass < b.errorClass ? -1 : 1));
}

/** A record as `--json` prints it: headers decoded, key and value as UTF-8 text. */
export function recordJson(r: DlqRecord) {
  return {
    id: r.id,
    partition: r.partition,
    offset: r.offset.toString(),
    timestamp: new Date(r.timestamp).toISOString(),
    key: r.key?.toString('utf8') ?? null,
    value: r.value?.toString('utf8') ?? null,
    attempt: r.decoded.attempt ?? null,
    errorClass: r.decoded.errorClass ?? null,
    errorMessage: r.decoded.errorMessage ?? null,
    originalTopic: r.decoded.originalTopic ?? null,
    originalPartition: r.decoded.originalPartition ?? null,
    originalOffset: r.decoded.originalOffset ?? null,
    firstFailedAt: r.decoded.firstFailedAt !== undefined ? new Date(r.decoded.firstFailedAt).toISOString() : null,
  };
}
