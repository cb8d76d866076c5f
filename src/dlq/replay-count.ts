import { REPLAY_COUNT_HEADER } from '../naming/headers';
import type { RawHeaders } from '../runtime/headers';

/** The record's replay count: 0 when it was never replayed, or when the header is garbage. */
export function replayCountOf(headers: RawHeaders): number {
  const raw = headers[REPLAY_COUNT_HEADER];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  const text = value === undefined ? '' : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  return /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : 0;
}
