import { backoffMs } from './backoff';
import type { Random } from './backoff';
import { composeClassifiers, defaultClassifier, policyClassifier } from './classify';
import type { ErrorClassifier, ErrorKind } from './classify';
import { systemClock } from './clock';
import type { Clock } from './clock';
import type { ConsumerDescriptor } from './descriptor';
import { buildDestinationRecord } from './destination-record';
import { decodeRetryHeaders } from './headers';
import type { PublishOptions, RoutedDestination } from './destination-record';
import { retryMetrics } from './metrics';
import type { RetryMetrics } from './metrics';
import type { EachMessagePayload, OutgoingMessage, ProducerPort, TopicPartitionOffset } from './port';
import { resolveDestination } from './resolve';
import type { Destination } from './resolve';

export type ConsumedRecord = EachMessagePayload;
export type { PublishOptions, RoutedDestination };

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
  /** The record that goes to the tier or the DLQ; never throws, whatever the record or the thrown value. */
  destinationRecord(record: ConsumedRecord, error: unknown, destination: RoutedDestination, options?: PublishOptions): OutgoingMessage;
  /**
   * Publishes to the tier or the DLQ and resolves once acknowledged; rejects only when the
   * producer does (the broker refused, or did not answer). Commit only after it resolves.
   */
  publish(record: ConsumedRecord, error: unknown, destination: RoutedDestination, options?: PublishOptions): Promise<TopicPartitionOffset>;
  /** The offset that marks this record done. */
  commitOffsetFor(record: ConsumedRecord): TopicPartitionOffset;
}


export function createRouter(consumer: ConsumerDescriptor, options: RouterOptions): Router {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const metrics = options.metrics ?? retryMetrics();
  const classify = composeClassifiers(policyClassifier(consumer.errorPolicy), options.classify, defaultClassifier);
  const destinationRecord: Router['destinationRecord'] = (record, error, destination, publish = {}) =>
    buildDestinationRecord(consumer, record, error, destination, { now: clock.now(), includeStackTraces: options.includeStackTraces ?? false, defaultPartitioner: publish.defaultPartitioner, trimmed: publish.trimmed, parkState: publish.parkState, unstamped: publish.unstamped });

  return {
    consumer,
    classify,
    decide: (record, error, triesInPlace) =>
      resolveDestination(consumer, { topic: record.topic, recordedAttempt: decodeRetryHeaders(record.message.headers).attempt, kind: classify(error), triesInPlace, now: clock.now() }),
    inPlaceBackoffMs: (retry) => backoffMs(retry, consumer.inPlace, random),
    destinationRecord,
    async publish(record, error, destination, publish) {
      const topic = destination.kind === 'tier' ? destination.tier.topic : consumer.dlqTopic;
      await options.producer.send({ topic, messages: [destinationRecord(record, error, destination, publish)] });
      const errorClass = classify(error);
      if (destination.kind === 'tier') metrics.retryRouted.inc({ consumer: consumer.name, tier: destination.tier.label, error_class: errorClass });
      else metrics.dlqRouted.inc({ consumer: consumer.name, error_class: errorClass });
      return this.commitOffsetFor(record);
    },
    commitOffsetFor: (record) => ({ topic: record.topic, partition: record.partition, offset: (BigInt(record.message.offset) + 1n).toString() }),
  };
}
