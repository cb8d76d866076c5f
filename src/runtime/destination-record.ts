import { PARK_STATE_HEADER } from '../naming/headers';
import { describeError, errorNameOf, safeField } from './describe-error';
import type { ConsumerDescriptor } from './descriptor';
import { decodeRetryHeaders, encodeRetryHeaders, MAX_EPOCH_MS, passThroughHeaders } from './headers';
import type { OutgoingMessage } from './port';
import { decodeOrigin, firstFailedGroup } from './record-origin';
import type { Destination } from './resolve';
import { carryTraceContext } from './tracing/trace-headers';
import { encodeSpringDltHeaders, encodeSpringRetryTopicHeaders } from './spring-headers';
import type { SpringHeaderValues } from './spring-headers';
import type { EachMessagePayload } from './port';

export type RoutedDestination = Exclude<Destination, { kind: 'in-place' }>;

/** How one publish of a destination record is made. */
export interface PublishOptions {
  /** Let the producer's default partitioner choose (the record's own partition does not exist in the destination). */
  readonly defaultPartitioner?: boolean;
  /**
   * Leave out the failure's text (`x-error-message`, the stack trace, Spring's exception
   * message): the full copy was refused as too large. The error class stays.
   */
  readonly trimmed?: boolean;
  /**
   * Park-by-key: the id of the state that holds the record's key for this copy, written as
   * PARK_STATE_HEADER; without it the copy keeps the one its record carries.
   */
  readonly parkState?: string;
  /**
   * A tier copy without its own timestamp (the producer stamps it when sent): the broker
   * refused the failure's time as out of the topic's accepted range
   * (`message.timestamp.before.max.ms`), as after a publish retried for longer than that.
   * `x-due-at` still says when it is due, so it never runs early.
   */
  readonly unstamped?: boolean;
}

export interface DestinationRecordOptions extends PublishOptions {
  readonly now: number;
  readonly includeStackTraces: boolean;
}

/** A record timestamp as epoch ms, or undefined when it is not one (-1, garbage, beyond what a Date holds). */
export function timestampOf(record: EachMessagePayload): number | undefined {
  const ms = Number(record.message.timestamp);
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}

/**
 * The record published to a tier or the DLQ: the original key and value, the record's
 * own headers, and headers describing the main-topic record and the failure. Total: any
 * record, any thrown value, any header bytes give a record (values that cannot be
 * represented are left out), so only the broker can stop a publish.
 */
export function buildDestinationRecord(consumer: ConsumerDescriptor, record: EachMessagePayload, error: unknown, destination: RoutedDestination, options: DestinationRecordOptions): OutgoingMessage {
  const previous = decodeRetryHeaders(record.message.headers);
  const fromMain = record.topic === consumer.mainTopic;
  const original = originOf(consumer, record);
  const failure = options.trimmed ? { name: errorNameOf(error), message: undefined, stack: undefined } : describeError(error, { withStack: options.includeStackTraces });
  const headers: OutgoingMessage['headers'] = {
    ...passThroughHeaders(record.message.headers),
    ...encodeRetryHeaders({
      attempt: destination.attempt,
      dueAt: destination.kind === 'tier' ? destination.dueAt : undefined,
      firstFailedAt: previous.firstFailedAt ?? options.now,
      ...original,
      errorClass: failure.name,
      errorMessage: failure.message,
    }),
  };
  // The state a copy was written under is the runtime's to say: a main record's own value (headers
  // an upstream service copied from a tier record) would judge its copy by a retry it is not.
  if (options.parkState !== undefined) headers[PARK_STATE_HEADER] = options.parkState;
  else if (fromMain) delete headers[PARK_STATE_HEADER];
  carryTraceContext(record.message.headers, headers);
  const spring: SpringHeaderValues = {
    ...original,
    consumerGroup: fromMain || consumer.ordering === 'park-by-key' ? consumer.groups.main : consumer.groups.retry,
    exceptionFqcn: failure.name,
    exceptionCauseFqcn: causeName(error),
    exceptionMessage: failure.message ?? '',
    stackTrace: failure.stack,
  };
  if (consumer.headerStyle === 'x+spring' && destination.kind === 'dlq') Object.assign(headers, encodeSpringDltHeaders(spring));
  if (consumer.headerStyle === 'x+spring-retry-topic') {
    // Spring counts the attempt the record is on at its destination; a DLT record is "due" when it failed.
    const attempts = destination.kind === 'tier' ? destination.attempt : destination.attempt + 1;
    const backoffTimestamp = destination.kind === 'tier' ? destination.dueAt : options.now;
    // @RetryableTopic keeps the first failure's group on every hop: the main group, or the
    // group a Spring service named when it failed the record first.
    const consumerGroup = fromMain ? consumer.groups.main : (firstFailedGroup(record.message.headers) ?? consumer.groups.main);
    Object.assign(headers, encodeSpringRetryTopicHeaders({ ...spring, consumerGroup, attempts, backoffTimestamp }));
  }
  const partition = options.defaultPartitioner ? {} : { partition: record.partition };
  // A tier record is stamped with the moment it failed, so that its own timestamp plus the
  // tier's delay is its x-due-at: a publish retried for a while does not make it due later.
  const timestamp = destination.kind === 'tier' && options.unstamped !== true ? { timestamp: String(destination.dueAt - destination.tier.delayMs) } : {};
  return { key: record.message.key, value: record.message.value, headers, ...partition, ...timestamp };
}

/**
 * The main-topic record a routed record stands for, as its x-original-* (and Spring's
 * original-*) headers say it. A main record is its own. A tier record names its main record
 * in whichever layouts wrote it (ours or Spring's), field by field, and a field none kept
 * readable (damaged, or no origin headers at all) is filled where the tier record's own
 * value is the main record's: the topic is the consumer's main topic, the partition the one
 * it was read from (a tier record keeps its main partition). Never the offset: the tier
 * record's own would name another main record, which park-by-key would then take for a
 * stale copy of that record's retry and skip; an unknown offset stays out.
 */
function originOf(consumer: ConsumerDescriptor, record: EachMessagePayload) {
  if (record.topic === consumer.mainTopic) {
    return { originalTopic: record.topic, originalPartition: record.partition, originalOffset: record.message.offset, originalTimestamp: timestampOf(record) };
  }
  const origin = decodeOrigin(record.message.headers);
  return {
    originalTopic: origin?.topic ?? consumer.mainTopic,
    originalPartition: origin?.partition ?? record.partition,
    originalOffset: origin?.offset,
    originalTimestamp: origin?.timestamp,
  };
}

function causeName(error: unknown): string | undefined {
  const cause = safeField(error, 'cause');
  return cause === undefined || cause === null ? undefined : errorNameOf(cause);
}
