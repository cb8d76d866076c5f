import type { ConsumerDescriptor } from './descriptor';
import type { RoutedDestination } from './destination-record';
import type { RetryEventListener } from './events';
import { decodeRetryHeaders } from './headers';
import { DLQ_DESTINATION_LABEL } from './metrics';
import type { RetryMetrics } from './metrics';
import type { TopicPartitionOffset } from './port';
import { publishUntilAcknowledged } from './publish-loop';
import { RecordTakenAgain } from './record-taken-again';
import { attemptOf } from './resolve';
import type { ConsumedRecord, Router } from './router';
import { StopRequested } from './stop-requested';
import { attemptSpans } from './tracing/attempt-spans';
import { decodingHandler, valueDecoderFor } from './value-codec';
import type { ValueDecoder } from './value-codec';

/** Where a handled record went: done, in a tier, or in the DLQ. */
export type HandleOutcome = 'success' | 'tier' | 'dlq';

/** A record the handler gave up on, and where it goes. */
export interface RoutedFailure {
  readonly error: unknown;
  readonly destination: RoutedDestination;
}

/**
 * Ends the publish of a tier record that is held (the DLQ refused even its trimmed copy)
 * instead of waiting inside it: the retry consumer's eachMessage slots are shared by every
 * tier partition, so the tier pipeline holds just the record's own partition (paused at the
 * record) and tries `failure` again after `retryInMs`, without running the handler again.
 */
export class PublishHeld extends Error {
  override name = 'KafkaRetryPublishHeld';
  constructor(
    readonly failure: RoutedFailure,
    readonly retryInMs: number,
  ) {
    super('the DLQ refused even the trimmed copy as too large: the record is held at its partition and tried again later');
  }
}

/**
 * How a tier record's handle() treats a hold: `away` (the record's own eachMessage call) ends
 * the publish with PublishHeld instead of waiting in it; `before` is the failure of a record
 * held before, published again without running the handler again.
 */
export interface TierHold {
  readonly away: boolean;
  readonly before?: RoutedFailure;
}

/** An acknowledged publish: the offset that marks the record done, and where it went (a tier's copy too large went to the DLQ). */
export interface Published {
  readonly commit: TopicPartitionOffset;
  readonly failure: RoutedFailure;
}

export interface RecordHandlerOptions {
  readonly consumer: ConsumerDescriptor;
  /** Your handler: resolve when the record is done, throw when it failed. */
  readonly handler: (record: ConsumedRecord) => Promise<void>;
  /** The consumer's value decoder, when not the one its descriptor carries. */
  readonly decodeValue?: ValueDecoder;
  /** The router, made when the consumer starts (it needs the producer). */
  readonly router: () => Router;
  readonly metrics: RetryMetrics;
  readonly emit: RetryEventListener;
  /** Events are built only when someone listens: no allocation per record otherwise. */
  readonly listening: boolean;
  /** Backoff between attempts to publish while the broker refuses. */
  readonly publishBackoff: { readonly initialMs: number; readonly maxMs: number };
  /** Waits on one record, heartbeating; rejects (StopRequested) when stop() comes first. */
  readonly waitHeartbeating: (record: ConsumedRecord, ms: number) => Promise<void>;
  readonly stopping: () => boolean;
}

/**
 * What happens to one record: the handler, its in-place retries, the publish of a failure
 * to its tier or the DLQ until acknowledged, and the counters and events of each outcome.
 * The pipelines (main, tiers, key parking) decide when a record runs and what is committed.
 */
export interface RecordHandler {
  /** The user's handler, for the main pipeline to call directly: a success costs no promise of ours. */
  readonly handler: (record: ConsumedRecord) => Promise<void>;
  /** After the handler threw: in-place retries, then where the record goes (nothing when a retry succeeded). Rejects when stop() cuts a wait short. */
  afterFailure(record: ConsumedRecord, error: unknown): Promise<RoutedFailure | undefined>;
  /**
   * Publishes until acknowledged; rejects only when stop() comes first (StopRequested) or
   * `abandoned()` turns true (RecordTakenAgain). Says which offset marks the record done and
   * where the record went. `onHeld`: the DLQ refused even the trimmed copy as too large, so
   * the record waits (the caller holds its partition rather than run the records after it).
   */
  publish(record: ConsumedRecord, failure: RoutedFailure, abandoned: () => boolean, onHeld?: () => void): Promise<Published>;
  /** After the acknowledgement: the `routed` event and the outcome counter. */
  routed(record: ConsumedRecord, failure: RoutedFailure): void;
  /** A main-topic record the handler finished with: its counter and `processed` event. */
  succeededOnMain(record: ConsumedRecord): void;
  /**
   * Runs the handler with in-place retries, then publishes a failure. Says where the record
   * went and what to commit. With `tier` (a tier record), a held record rejects with
   * PublishHeld when `tier.away`, and `tier.before` is published instead of running the handler.
   * `parkState`: park-by-key's id of the state that holds the record's key for its copy.
   */
  handle(record: ConsumedRecord, fromParking: boolean, tier?: TierHold, parkState?: string): Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }>;
  /** A rebalance: publishes that handle() started give up at their next try (the partition may be another member's). */
  revoke(): void;
}

/** The consumer's own handle on it: the pipelines need only RecordHandler. */
export interface StartedRecordHandler extends RecordHandler {
  /** As the consumer starts: the span active then (a traced bootstrap) is no delivery's own (docs/tracing.md). */
  started(): void;
}

export function createRecordHandler(options: RecordHandlerOptions): StartedRecordHandler {
  const { consumer, metrics, emit, listening } = options;
  const parkByKey = consumer.ordering === 'park-by-key';
  // A consumer with a value codec: the handler gets the decoded value, or the record a DeserializationError.
  const decoding = decodingHandler(options.handler, valueDecoderFor(consumer, options.decodeValue));
  /** Rebalances so far: a publish started before one gives up. */
  let revocations = 0;
  /** A span per attempt (docs/tracing.md); no-ops without a registered tracer provider. */
  const spans = attemptSpans(consumer);
  const handler = spans.traced(decoding);

  /** The attempt a record is on, as its tier or DLQ record says it (a draining tier's records count their x-attempt). Events only. */
  const attemptOfRecord = (record: ConsumedRecord) => attemptOf(consumer, record.topic, decodeRetryHeaders(record.message.headers).attempt);
  const mainAttempt = attemptOf(consumer, consumer.mainTopic);

  /** Counters of the records finished, by topic and outcome: found once, not per record. */
  const cellsByTopic = new Map(
    [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic)].map((topic) => [
      topic,
      {
        success: metrics.messageCells.cell({ consumer: consumer.name, topic, outcome: 'success' }),
        retry: metrics.messageCells.cell({ consumer: consumer.name, topic, outcome: 'retry' }),
        dlq: metrics.messageCells.cell({ consumer: consumer.name, topic, outcome: 'dlq' }),
      },
    ]),
  );
  const outcomeCell = (topic: string, outcome: 'success' | 'retry' | 'dlq') => cellsByTopic.get(topic)![outcome];
  const mainSuccess = outcomeCell(consumer.mainTopic, 'success');

  async function publish(record: ConsumedRecord, failure: RoutedFailure, abandoned: () => boolean, onHeld?: () => void, tier?: TierHold, parkState?: string): Promise<Published> {
    /** Where the copy goes: a tier copy refused as too large goes on to the DLQ. */
    let current = failure;
    let held = tier?.before !== undefined;
    const commit = await publishUntilAcknowledged({
      held,
      publish: (publishOptions) => spans.within(record, () => options.router().publish(record, current.error, current.destination, parkState === undefined ? publishOptions : { ...publishOptions, parkState })),
      // Park-by-key needs tier partition p for main partition p; a DLQ record has no order to keep.
      get mayRepartition() {
        return !parkByKey || current.destination.kind === 'dlq';
      },
      redirect: () => {
        const { destination } = current;
        if (destination.kind !== 'tier') return false;
        current = { error: current.error, destination: { kind: 'dlq', attempt: destination.attempt - 1, reason: 'too-large' } };
        return true;
      },
      onHeld: () => {
        held = true;
        if (listening) emit({ type: 'publish-held', record, error: current.error, destination: current.destination });
        onHeld?.();
      },
      backoff: options.publishBackoff,
      wait: async (ms) => {
        if (held && tier?.away === true) throw new PublishHeld(current, ms);
        await options.waitHeartbeating(record, ms);
        if (abandoned()) throw new RecordTakenAgain();
      },
      onFailure: ({ error: failure, reason, retryInMs }) => {
        // A publish cut short by stop() is no failure: the record stays uncommitted for the next run.
        if (options.stopping()) throw new StopRequested();
        if (abandoned()) throw new RecordTakenAgain();
        const { destination } = current;
        metrics.publishFailures.inc({ consumer: consumer.name, destination: destination.kind === 'tier' ? destination.tier.label : DLQ_DESTINATION_LABEL, reason });
        if (listening) emit({ type: 'publish-failed', record, error: failure, retryInMs, destination, reason });
      },
    });
    return { commit, failure: current };
  }

  async function afterFailure(record: ConsumedRecord, firstError: unknown): Promise<RoutedFailure | undefined> {
    let error = firstError;
    for (let tries = 1; ; tries++) {
      const destination = options.router().decide(record, error, tries);
      if (destination.kind !== 'in-place') return { error, destination };
      const waitMs = options.router().inPlaceBackoffMs(destination.retry);
      if (listening) emit({ type: 'failed-in-place', record, attempt: attemptOfRecord(record), error, waitMs });
      await options.waitHeartbeating(record, waitMs);
      try {
        await spans.within(record, () => decoding(record));
        return undefined;
      } catch (next) {
        error = next;
      }
    }
  }

  function routed(record: ConsumedRecord, failure: RoutedFailure): void {
    if (listening) emit({ type: 'routed', record, attempt: attemptOfRecord(record), error: failure.error, destination: failure.destination });
    outcomeCell(record.topic, failure.destination.kind === 'tier' ? 'retry' : 'dlq').inc();
    spans.routed(record, failure.error, failure.destination, options.router());
  }

  return {
    started: () => spans.started(),
    handler,
    afterFailure: (record, error) => spans.endIfRejected(record, afterFailure(record, error)),
    publish: (record, failure, abandoned, onHeld) => spans.endIfRejected(record, publish(record, failure, abandoned, onHeld)),
    routed,
    succeededOnMain(record) {
      spans.done(record);
      mainSuccess.inc();
      if (listening) emit({ type: 'processed', record, attempt: mainAttempt, parked: false });
    },
    async handle(record, fromParking, tier, parkState) {
      let failure = tier?.before;
      if (failure === undefined) {
        try {
          await handler(record);
        } catch (error) {
          failure = await spans.endIfRejected(record, afterFailure(record, error));
        }
      }
      if (failure === undefined) {
        if (listening) emit({ type: 'processed', record, attempt: attemptOfRecord(record), parked: fromParking });
        outcomeCell(record.topic, 'success').inc();
        spans.done(record);
        return { outcome: 'success', commit: options.router().commitOffsetFor(record) };
      }
      // A rebalance ends the loop: the partition may be another member's now, which reads the record again.
      const startedIn = revocations;
      const published = await spans.endIfRejected(record, publish(record, failure, () => revocations !== startedIn, undefined, tier, parkState));
      routed(record, published.failure);
      return { outcome: published.failure.destination.kind, commit: published.commit };
    },
    revoke() {
      revocations++;
    },
  };
}
