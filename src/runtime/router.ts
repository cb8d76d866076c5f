import { backoffMs } from './backoff';
import type { Random } from './backoff';
import { composeClassifiers, defaultClassifier, errorName, policyClassifier } from './classify';
import type { ErrorClassifier, ErrorKind } from './classify';
import { systemClock } from './clock';
import type { Clock } from './clock';
import type { ConsumerDescriptor } from './descriptor';
import { decodeRetryHeaders, encodeRetryHeaders, passThroughHeaders } from './headers';
import { retryMetrics } from './metrics';
import type { RetryMetrics } from './metrics';
import type { EachMessagePayload, OutgoingMessage, ProducerPort, TopicPartitionOffset } from './port';
import { resolveDestination } from './resolve';
import type { Destination } from './resolve';
import { encodeSpringDltHeaders } from './spring-headers';

export type ConsumedRecord = EachMessagePayload;
export type RoutedDestination = Exclude<Destination, { kind: 'in-place' }>;

export interface RouterOptions {
  readonly producer: ProducerPort;
  readonly clock?: Clock;
  readonly random?: Random;
  /** Your own classifier, asked after the consumer's declared errors and before the default table. */
  readonly classify?: ErrorClassifier;
  readonly metrics?: RetryMetrics;
  /** Put stack traces into DLQ headers. Off by default: they name files and code paths (R10). */
  readonly includeStackTraces?: boolean;
}

/**
 * The low-level router, for teams with their own consumer loop: decide where a failed
 * record goes, publish it there (acks=-1), and say which offset to commit afterwards.
 */
export interface Router {
  readonly consumer: ConsumerDescriptor;
  classify(error: unknown): ErrorKind;
  /** Where a record goes after failing `triesInPlace` times in the handler. */
  decide(record: ConsumedRecord, error: unknown, triesInPlace: number): Destination;
  /** The wait before in-place retry `retry`. */
  inPlaceBackoffMs(retry: number): number;
  /** Publishes to the tier or the DLQ and resolves once acknowledged; throws if it is not. Commit only then. */
  publish(record: ConsumedRecord, error: unknown, destination: RoutedDestination): Promise<TopicPartitionOffset>;
  /** The offset that marks this record done. */
  commitOffsetFor(record: ConsumedRecord): TopicPartitionOffset;
}

export function createRouter(consumer: ConsumerDescriptor, options: RouterOptions): Router {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const metrics = options.metrics ?? retryMetrics();
  const classify = composeClassifiers(policyClassifier(consumer.errorPolicy), options.classify, defaultClassifier);

  function outgoing(record: ConsumedRecord, error: unknown, destination: RoutedDestination): OutgoingMessage {
    const previous = decodeRetryHeaders(record.message.headers);
    const fromMain = record.topic === consumer.mainTopic;
    const original = {
      originalTopic: fromMain ? record.topic : (previous.originalTopic ?? consumer.mainTopic),
      originalPartition: fromMain ? record.partition : (previous.originalPartition ?? record.partition),
      originalOffset: fromMain ? record.message.offset : (previous.originalOffset ?? record.message.offset),
    };
    const message = error instanceof Error ? error.message : String(error);
    const headers: OutgoingMessage['headers'] = {
      ...passThroughHeaders(record.message.headers),
      ...encodeRetryHeaders({
        attempt: destination.attempt,
        dueAt: destination.kind === 'tier' ? destination.dueAt : undefined,
        firstFailedAt: previous.firstFailedAt ?? clock.now(),
        ...original,
        errorClass: errorName(error),
        errorMessage: message,
      }),
    };
    if (destination.kind === 'dlq' && consumer.headerStyle === 'x+spring') {
      Object.assign(
        headers,
        encodeSpringDltHeaders({
          ...original,
          originalTimestamp: Number(record.message.timestamp) || 0,
          consumerGroup: fromMain ? consumer.groups.main : consumer.groups.retry,
          exceptionFqcn: errorName(error),
          exceptionMessage: message,
          stackTrace: options.includeStackTraces && error instanceof Error ? error.stack : undefined,
        }),
      );
    }
    return { key: record.message.key, value: record.message.value, headers, partition: record.partition };
  }

  return {
    consumer,
    classify,
    decide: (record, error, triesInPlace) =>
      resolveDestination(consumer, { topic: record.topic, recordedAttempt: decodeRetryHeaders(record.message.headers).attempt, kind: classify(error), triesInPlace, now: clock.now() }),
    inPlaceBackoffMs: (retry) => backoffMs(retry, consumer.inPlace, random),
    async publish(record, error, destination) {
      const topic = destination.kind === 'tier' ? destination.tier.topic : consumer.dlqTopic;
      await options.producer.send({ topic, messages: [outgoing(record, error, destination)] });
      const errorClass = classify(error);
      if (destination.kind === 'tier') metrics.retryRouted.inc({ consumer: consumer.name, tier: destination.tier.label, error_class: errorClass });
      else metrics.dlqRouted.inc({ consumer: consumer.name, error_class: errorClass });
      return this.commitOffsetFor(record);
    },
    commitOffsetFor: (record) => ({ topic: record.topic, partition: record.partition, offset: (BigInt(record.message.offset) + 1n).toString() }),
  };
}
