import { decodeRetryHeaders } from './headers';
import type { RawHeaders } from './headers';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from './spring-headers';

/** Which header layout said where a record came from. */
export type OriginLayout = 'x' | 'spring-retry-topic' | 'spring-dlt';

/**
 * The main-topic record a tier or DLQ record stands for. Each value is checked: one that
 * is missing, negative or of the wrong size is undefined, never a crash.
 */
export interface RecordOrigin {
  readonly layout: OriginLayout;
  readonly topic?: string;
  readonly partition?: number;
  /** A decimal string: offsets go beyond 2^53. */
  readonly offset?: string;
  /** Epoch ms of the main-topic record. */
  readonly timestamp?: number;
}

const nonNegative = (n: number | undefined) => (n !== undefined && n >= 0 ? n : undefined);

type OriginFields = Omit<RecordOrigin, 'layout'>;
const FIELDS = ['topic', 'partition', 'offset', 'timestamp'] as const;
/** Fields that say which record it was; a timestamp alone does not name one. */
const names = (o: OriginFields) => o.topic !== undefined || o.partition !== undefined || o.offset !== undefined;

/**
 * Where a record came from, decoded once from whichever layouts it carries, each field
 * from the first layout that has it readable: our `x-original-*` first; then
 * `@RetryableTopic`'s `kafka_original-*` (Spring writes them once, on the first hop, so
 * they always name the main-topic record); then the DeadLetterPublishingRecoverer's
 * `kafka_dlt-original-*` (the record it failed, which is the main one unless a plain
 * recoverer sat on a retry topic). Every layout describes the same main-topic record, so
 * a field one lacks (cut, garbage, dropped by a header tool) is another's, and a field
 * none has is left out (the writer of a routed record fills the topic and partition, never
 * the offset: destination-record.ts). Undefined when the record names no origin. `layout` is the first layout that
 * named one. Every writer of original-* (tier and DLQ records, replays) and every reader
 * (DLQ tools, console) goes through this, so no layout is read in one place and lost in
 * another.
 */
export function decodeOrigin(headers: RawHeaders | undefined): RecordOrigin | undefined {
  const h = headers ?? {};
  const x = decodeRetryHeaders(h);
  const retryTopic = decodeSpringRetryTopicHeaders(h);
  const dlt = decodeSpringDltHeaders(h);
  const layouts: [OriginLayout, OriginFields][] = [
    ['x', { topic: x.originalTopic, partition: x.originalPartition, offset: x.originalOffset, timestamp: x.originalTimestamp }],
    ['spring-retry-topic', springOrigin(retryTopic, retryTopic.originalTimestamp ?? retryTopic.retryOriginalTimestamp)],
    ['spring-dlt', springOrigin(dlt, dlt.originalTimestamp)],
  ];
  const first = layouts.find(([, fields]) => names(fields));
  if (first === undefined) return undefined;
  const origin: { -readonly [K in keyof OriginFields]?: OriginFields[K] } = {};
  for (const field of FIELDS) {
    const value = layouts.map(([, fields]) => fields[field]).find((v) => v !== undefined);
    if (value !== undefined) (origin as Record<string, unknown>)[field] = value;
  }
  return { layout: first[0], ...origin };
}

function springOrigin(s: { originalTopic?: string; originalPartition?: number; originalOffset?: string }, timestamp: number | undefined): OriginFields {
  return {
    topic: s.originalTopic || undefined,
    partition: nonNegative(s.originalPartition),
    offset: s.originalOffset !== undefined && !s.originalOffset.startsWith('-') ? s.originalOffset : undefined,
    timestamp: nonNegative(timestamp),
  };
}

/**
 * The group whose consumer first failed the record, as Spring keeps it in
 * `kafka_dlt-original-consumer-group` (both of its layouts use that name; its first value
 * is the first failure's). Undefined when the record carries none.
 */
export function firstFailedGroup(headers: RawHeaders | undefined): string | undefined {
  return decodeSpringDltHeaders(headers ?? {}).consumerGroup || undefined;
}

