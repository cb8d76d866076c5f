import type { DlqRecord } from '../dlq/session';
import type { RawHeaders } from '../runtime/headers';
import { KrtError } from '../runtime/krt-error';

/** What a consumer's DLQ page narrows the records to; every field optional. */
export interface RecordFilter {
  /** The error name (x-error-class), exactly. */
  readonly error?: string;
  /** Record timestamps from and to, inclusive, epoch ms. */
  readonly from?: number;
  readonly to?: number;
  /** Text the key contains. */
  readonly key?: string;
  /** Text a header's name or value contains. */
  readonly header?: string;
}

export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

export function one(query: Query, name: string): string | undefined {
  const value = query[name];
  const text = Array.isArray(value) ? value[0] : (value as string | undefined);
  return text === undefined || text.trim() === '' ? undefined : text;
}

export class FilterError extends KrtError {
  constructor(message: string) {
    super(message, { exit: 'usage' });
  }
}

/** `2026-12-01T15:00` (a datetime-local field, read as UTC) or any ISO time. */
function time(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw new FilterError(`${name} must be a time such as 2026-12-01T15:00 (UTC), not '${value}'`);
  return ms;
}

export function filterOf(query: Query): RecordFilter {
  return { error: one(query, 'error'), from: time(one(query, 'from'), 'from'), to: time(one(query, 'to'), 'to'), key: one(query, 'key'), header: one(query, 'header') };
}

/** The filter as query values, for links and forms that keep it. */
export function filterQuery(filter: RecordFilter): Record<string, string | undefined> {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 19));
  return { error: filter.error, from: iso(filter.from), to: iso(filter.to), key: filter.key, header: filter.header };
}

function headerTexts(headers: RawHeaders): string[] {
  return Object.entries(headers).flatMap(([name, raw]) => [name, ...(Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)))]);
}

export function matches(filter: RecordFilter, record: DlqRecord): boolean {
  if (filter.error !== undefined && record.decoded.errorClass !== filter.error) return false;
  if (filter.from !== undefined && record.timestamp < filter.from) return false;
  if (filter.to !== undefined && record.timestamp > filter.to) return false;
  if (filter.key !== undefined && !(record.key?.toString('utf8') ?? '').includes(filter.key)) return false;
  if (filter.header !== undefined && !headerTexts(record.headers).some((t) => t.includes(filter.header!))) return false;
  return true;
}

/** Names inspect groups records by when a header is missing (src/dlq/inspect). */
export const NO_ERROR_NAME = '(none)';
export const NO_ORIGINAL_TOPIC = '(unknown)';

export function inGroup(record: DlqRecord, group: { readonly error: string; readonly topic: string }): boolean {
  return (record.decoded.errorClass ?? NO_ERROR_NAME) === group.error && (record.decoded.originalTopic ?? NO_ORIGINAL_TOPIC) === group.topic;
}
