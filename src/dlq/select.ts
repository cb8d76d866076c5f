import { DLQ_RECORD_ID_FORMAT } from '../naming';
import { DlqError } from './session';
import type { DlqRecord } from './session';

export interface Selection {
  readonly ids?: readonly string[];
  readonly errorClass?: string;
  readonly all?: boolean;
  readonly limit?: number;
}

const ID_PATTERN = /^\d+:\d+$/;

/** Whether `id` is written as a DLQ record id, `<partition>:<offset>`. */
export const isRecordId = (id: string): boolean => ID_PATTERN.test(id);

/** The records a replay or discard acts on; unknown or handled ids are an error, not a silent skip. */
export function selectRecords(records: readonly DlqRecord[], selection: Selection): DlqRecord[] {
  let chosen: DlqRecord[];
  if (selection.ids) {
    const bad = selection.ids.filter((id) => !isRecordId(id));
    if (bad.length > 0) throw new DlqError(`record ids look like ${DLQ_RECORD_ID_FORMAT}; not ${bad.join(', ')}`);
    const byId = new Map(records.map((r) => [r.id, r]));
    const missing = selection.ids.filter((id) => !byId.has(id));
    if (missing.length > 0) throw new DlqError(`no unhandled DLQ record ${missing.join(', ')}: run krt dlq inspect to see the ids`);
    // A set: an id typed twice is one record.
    chosen = [...new Set(selection.ids)].map((id) => byId.get(id)!);
  } else if (selection.errorClass !== undefined) {
    chosen = records.filter((r) => r.decoded.errorClass === selection.errorClass);
  } else if (selection.all) {
    chosen = [...records];
  } else {
    throw new DlqError('say which records: --ids, --error-class or --all');
  }
  // Always in log order, whatever order the ids were typed in: records of one key reach the
  // route in the order the DLQ holds them (park-by-key), and --limit takes the oldest.
  chosen.sort(byLogOrder);
  return selection.limit !== undefined ? chosen.slice(0, selection.limit) : chosen;
}

/** Partition, then offset. */
export function byLogOrder(a: DlqRecord, b: DlqRecord): number {
  return a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0);
}
