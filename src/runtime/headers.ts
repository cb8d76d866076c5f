import { HEADERS, PARK_STATE_HEADER, SPRING_DLT_HEADERS, SPRING_RETRY_TOPIC_HEADERS } from '../naming/headers';

/** Kafka header values as clients hand them over. */
export type RawHeaders = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

/** The longest `x-error-message` we write: enough to triage, short of a payload dump. */
export const MAX_ERROR_MESSAGE_LENGTH = 1024;

/** What the `x-*` headers of a retry or DLQ record say, each value checked. */
export interface RetryHeaders {
  readonly attempt?: number;
  readonly dueAt?: number;
  readonly firstFailedAt?: number;
  readonly originalTopic?: string;
  readonly originalPartition?: number;
  readonly originalOffset?: string;
  readonly originalTimestamp?: number;
  readonly errorClass?: string;
  readonly errorMessage?: string;
  readonly replayedFromDlq?: boolean;
}

function text(headers: RawHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined) return undefined;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** A non-negative decimal integer no larger than `max`, or undefined for anything else. */
function integer(value: string | undefined, max: number): number | undefined {
  if (value === undefined || !/^\d{1,16}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) && n <= max ? n : undefined;
}

/** Kafka offsets are signed 64-bit: a larger one in a header is garbage. */
const MAX_OFFSET = 2n ** 63n - 1n;
/** The latest epoch ms a JavaScript Date can hold. */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;

/**
 * An epoch ms as ISO 8601, or undefined when a Date cannot hold it: any printer of a
 * timestamp read from a record goes through this, so one record's bytes never throw.
 */
export function isoTimeOf(ms: number | undefined): string | undefined {
  return ms !== undefined && Number.isFinite(ms) && Math.abs(ms) <= MAX_EPOCH_MS ? new Date(ms).toISOString() : undefined;
}

/** Garbage (non-numeric, negative, huge, missing) reads as absent, never as a crash. */
export function decodeRetryHeaders(headers: RawHeaders | undefined): RetryHeaders {
  const h = headers ?? {};
  const offset = text(h, HEADERS.originalOffset);
  return {
    attempt: integer(text(h, HEADERS.attempt), 1_000_000),
    dueAt: integer(text(h, HEADERS.dueAt), MAX_EPOCH_MS),
    firstFailedAt: integer(text(h, HEADERS.firstFailedAt), MAX_EPOCH_MS),
    originalTopic: text(h, HEADERS.originalTopic) || undefined,
    originalPartition: integer(text(h, HEADERS.originalPartition), 2 ** 31 - 1),
    originalOffset: offset !== undefined && /^\d{1,19}$/.test(offset) && BigInt(offset) <= MAX_OFFSET ? BigInt(offset).toString() : undefined,
    originalTimestamp: integer(text(h, HEADERS.originalTimestamp), MAX_EPOCH_MS),
    errorClass: text(h, HEADERS.errorClass) || undefined,
    errorMessage: text(h, HEADERS.errorMessage),
    replayedFromDlq: text(h, HEADERS.replayedFromDlq) !== undefined,
  };
}

/**
 * PARK_STATE_HEADER: `<id>`, the park-by-key state a tier record was written under, then
 * `.<retry id>` when the retry is a replayed record's (the hold's retry id: park-state.ts
 * takeHold); either may be left out. Anything else carries neither.
 */
const PARK_STATE_VALUE = /^([A-Za-z0-9_-]{8})?(?:\.([A-Za-z0-9_-]{6}))?$/;

/** The park-by-key state id a tier record was written under (PARK_STATE_HEADER), or undefined when it carries none that could be one. */
export function parkStateIdOf(headers: RawHeaders | undefined): string | undefined {
  return parkStateValueOf(headers)?.[1];
}

/** The retry id a tier record's copy carries (PARK_STATE_HEADER): its retry is a replayed record's. */
export function retryIdOf(headers: RawHeaders | undefined): string | undefined {
  return parkStateValueOf(headers)?.[2];
}

/** Whether a tier record's PARK_STATE_HEADER, if it has one, reads as one the runtime writes. */
export function parkStateReadable(headers: RawHeaders | undefined): boolean {
  return text(headers ?? {}, PARK_STATE_HEADER) === undefined || parkStateValueOf(headers) !== null;
}

function parkStateValueOf(headers: RawHeaders | undefined): RegExpExecArray | null {
  const value = text(headers ?? {}, PARK_STATE_HEADER);
  return value === undefined ? null : PARK_STATE_VALUE.exec(value);
}

/** The PARK_STATE_HEADER value of a copy: the state's id and the retry id, each when there is one; undefined for neither. */
export function parkStateHeaderValue(stateId: string | undefined, retryId: string | undefined): string | undefined {
  if (stateId === undefined && retryId === undefined) return undefined;
  return `${stateId ?? ''}${retryId === undefined ? '' : `.${retryId}`}`;
}

export function truncate(message: string, max = MAX_ERROR_MESSAGE_LENGTH): string {
  return message.length <= max ? message : `${message.slice(0, max - 1)}…`;
}

/** The `x-*` headers of a record routed to a tier or the DLQ. */
export function encodeRetryHeaders(h: {
  attempt: number;
  dueAt?: number;
  firstFailedAt: number;
  originalTopic: string;
  originalPartition?: number;
  /** Left out when unknown (a tier record whose headers lost it): never guessed. */
  originalOffset?: string;
  originalTimestamp?: number;
  errorClass: string;
  /** Left out of a copy trimmed because the full one was too large. */
  errorMessage: string | undefined;
}): Record<string, string> {
  // Assigned one by one, in this order (the order the headers are written in): spreads of
  // computed keys cost a failing record several times as much.
  const headers: Record<string, string> = {};
  headers[HEADERS.attempt] = String(h.attempt);
  if (h.dueAt !== undefined) headers[HEADERS.dueAt] = String(h.dueAt);
  headers[HEADERS.firstFailedAt] = String(h.firstFailedAt);
  headers[HEADERS.originalTopic] = h.originalTopic;
  if (h.originalPartition !== undefined) headers[HEADERS.originalPartition] = String(h.originalPartition);
  if (h.originalOffset !== undefined) headers[HEADERS.originalOffset] = h.originalOffset;
  if (h.originalTimestamp !== undefined) headers[HEADERS.originalTimestamp] = String(h.originalTimestamp);
  headers[HEADERS.errorClass] = h.errorClass;
  if (h.errorMessage !== undefined) headers[HEADERS.errorMessage] = truncate(h.errorMessage);
  return headers;
}

/**
 * An empty map of headers by name. Header names are bytes a producer chooses: on a plain
 * `{}` a header named `__proto__` set by assignment becomes the prototype and is lost, so
 * every header map is built without one.
 */
export function headerMap<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

const WRITTEN_HERE = new Set<string>([...Object.values(HEADERS), ...Object.values(SPRING_DLT_HEADERS), ...Object.values(SPRING_RETRY_TOPIC_HEADERS)]);

/** The record's own headers without the `x-*` and Spring headers this library writes. */
export function passThroughHeaders(headers: RawHeaders | undefined): Record<string, Buffer | string | (Buffer | string)[]> {
  const ours = WRITTEN_HERE;
  const out = headerMap<Buffer | string | (Buffer | string)[]>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined && !ours.has(name) && !name.startsWith('kafka_dlt-')) out[name] = value;
  }
  return out;
}
