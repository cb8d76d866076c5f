import type { Attributes } from '@opentelemetry/api';
import { TRACE_ATTRIBUTES, TRACE_DESTINATIONS } from '../../naming/tracing';
import type { ErrorKind } from '../classify';
import { errorNameOf } from '../describe-error';
import type { ConsumerDescriptor } from '../descriptor';
import type { RoutedDestination } from '../destination-record';
import { decodeRetryHeaders } from '../headers';
import { attemptOf } from '../resolve';
import type { ConsumedRecord } from '../router';

/**
 * The OpenTelemetry messaging conventions' attribute names (semantic-conventions 1.27+),
 * written out: the runtime depends on `@opentelemetry/api` alone.
 */
export const MESSAGING = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destinationName: 'messaging.destination.name',
  partitionId: 'messaging.destination.partition.id',
  consumerGroup: 'messaging.consumer.group.name',
  offset: 'messaging.kafka.offset',
  key: 'messaging.kafka.message.key',
  errorType: 'error.type',
} as const;

/** What a process span says about the record and the attempt, when it starts. */
export function attemptAttributes(consumer: ConsumerDescriptor, record: ConsumedRecord): Attributes {
  const onMain = record.topic === consumer.mainTopic;
  const tier = onMain ? undefined : consumer.tiers.find((t) => t.topic === record.topic);
  const headers = decodeRetryHeaders(record.message.headers);
  const offset = Number(record.message.offset);
  const key = record.message.key;
  return {
    [MESSAGING.system]: 'kafka',
    [MESSAGING.operationType]: 'process',
    [MESSAGING.operationName]: 'process',
    [MESSAGING.destinationName]: record.topic,
    [MESSAGING.partitionId]: String(record.partition),
    [MESSAGING.consumerGroup]: onMain || consumer.ordering === 'park-by-key' ? consumer.groups.main : consumer.groups.retry,
    ...(Number.isSafeInteger(offset) ? { [MESSAGING.offset]: offset } : {}),
    ...(key !== null && key !== undefined ? { [MESSAGING.key]: Buffer.isBuffer(key) ? key.toString('utf8') : String(key) } : {}),
    [TRACE_ATTRIBUTES.consumer]: consumer.name,
    [TRACE_ATTRIBUTES.attempt]: attemptOf(consumer, record.topic, headers.attempt),
    ...(tier ? { [TRACE_ATTRIBUTES.tier]: tier.label } : {}),
    ...(headers.replayedFromDlq ? { [TRACE_ATTRIBUTES.replayed]: true } : {}),
  };
}

/** Where a failed attempt sent the record, and why. */
export function routedAttributes(error: unknown, destination: RoutedDestination, classification: ErrorKind): Attributes {
  const name = errorNameOf(error);
  return {
    [TRACE_ATTRIBUTES.destination]: destination.kind === 'tier' ? TRACE_DESTINATIONS.tier : TRACE_DESTINATIONS.dlq,
    ...(destination.kind === 'tier' ? { [TRACE_ATTRIBUTES.destinationTier]: destination.tier.label } : {}),
    [TRACE_ATTRIBUTES.classification]: classification,
    [TRACE_ATTRIBUTES.errorName]: name,
    [MESSAGING.errorType]: name,
  };
}
