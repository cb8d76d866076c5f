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

const usable = (o: Omit<RecordOrigin, 'layout'>) => o.topic !== undefined || o.partition !== undefined || o.offset !== undefined;
const nonNegative = (n: number | undefined) => (n !== undefined && n >= 0 ? n : undefined);

/**
 * Where a record came from, decoded once from whichever layout it carries, taken whole
 * from one layout, never mixed: our `x-original-*` first; then `@RetryableTopic`'s
 * `kafka_original-*` (Spring writes them once, on the first hop, so they always name the
 * main-topic record); then the DeadLetterPublishingRecoverer's `kafka_dlt-original-*`
 * (the record it failed, which is the main one unless a plain recoverer sat on a retry
 * topic). Undefined when the record carries none: it is then its own origin. Every writer
 * of original-* (tier and DLQ records, replays) and every reader (DLQ tools, console)
 * goes through this, so no layout is read in one place and lost in another.
 */
export function decodeOrigin(headers: RawHeaders | undefined): RecordOrigin | undefined {
  const h = headers ?? {};
  const x = decodeRetryHeaders(h);
  const ours = { topic: x.originalTopic, partition: x.originalPartition, offset: x.originalOffset, timestamp: x.originalTimestamp };
  if (usable(ours)) return { layout: 'x', ...ours };
  const retryTopic = decodeSpringRetryTopicHeaders(h);
  const fromRetryTopic = springOrigin(retryTopic, retryTopic.originalTimestamp ?? retryTopic.retryOriginalTimestamp);
  if (usable(fromRetryTopic)) return { layout: 'spring-retry-topic', ...fromRetryTopic };
  const dlt = decodeSpringDltHeaders(h);
  const fromDlt = springOrigin(dlt, dlt.originalTimestamp);
  if (usable(fromDlt)) return { layout: 'spring-dlt', ...fromDlt };
  return undefined;
}

function springOrigin(s: { originalTopic?: string; originalPartition?: number; originalOffset?: string }, timestamp: number | undefined) {
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

