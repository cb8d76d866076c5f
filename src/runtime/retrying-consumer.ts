import type { Registry } from 'prom-client';
import type { Random } from './backoff';
import type { ErrorClassifier } from './classify';
import { systemClock } from './clock';
import type { Clock } from './clock';
import type { ConsumerDescriptor, TierDescriptor } from './descriptor';
import type { RetryEventListener } from './events';
import { decodeRetryHeaders } from './headers';
import { initializeConsumerSeries, retryMetrics } from './metrics';
import type { RetryMetrics } from './metrics';
import type { ParkingLot } from './parking-lot';
import type { ConsumerPort, EachMessagePayload, KafkaPort, ProducerPort, TopicPartitionOffset } from './port';
import { attemptOf } from './resolve';
import { createRouter } from './router';
import type { ConsumedRecord, Router } from './router';

export interface RetryingConsumerOptions {
  readonly kafka: KafkaPort;
  /** Your handler: resolve when the record is done, throw when it failed. */
  readonly handler: (record: ConsumedRecord) => Promise<void>;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly classify?: ErrorClassifier;
  /** Where the metrics go; a fresh registry by default. */
  readonly registry?: Registry;
  readonly includeStackTraces?: boolean;
  /** Required with `park-by-key` ordering. */
  readonly parkingLot?: ParkingLot;
  readonly onEvent?: RetryEventListener;
  /** Backoff between attempts to publish to a tier or the DLQ while the broker refuses. */
  readonly publishBackoff?: { readonly initialMs: number; readonly maxMs: number };
}

export interface RetryingConsumer {
  readonly metrics: RetryMetrics;
  readonly router: Router;
  start(): Promise<void>;
  /** Finishes the records in hand, commits them, and disconnects. */
  stop(): Promise<void>;
}

class StopRequested extends Error {}

/**
 * A main consumer and a retry consumer for one consumer descriptor (R11-R14): failures
 * are routed to a tier or the DLQ and the offset is committed only after the publish is
 * acknowledged; tier records wait with their partition paused, never in a sleep.
 */
export function createRetryingConsumer(consumer: ConsumerDescriptor, options: RetryingConsumerOptions): RetryingConsumer {
  const clock = options.clock ?? systemClock;
  const metrics = retryMetrics(options.registry);
  initializeConsumerSeries(metrics, consumer);
  const emit: RetryEventListener = options.onEvent ?? (() => {});
  const publishBackoff = options.publishBackoff ?? { initialMs: 200, maxMs: 30_000 };
  if (consumer.ordering === 'park-by-key' && !options.parkingLot) {
    throw new Error(`consumer ${consumer.name} orders 'park-by-key' and needs a parkingLot option`);
  }

  let producer: ProducerPort | undefined;
  let router!: Router;
  let mainConsumer: ConsumerPort | undefined;
  let retryConsumer: ConsumerPort | undefined;
  let stopping = false;
  let signalStop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (signalStop = resolve));

  /** Waits, unless stop() comes first: then the record is left uncommitted for the next run. */
  async function waitUnlessStopped(ms: number): Promise<void> {
    await Promise.race([clock.sleep(ms), stopSignal]);
    if (stopping) throw new StopRequested();
  }
  const inFlight = new Set<Promise<void>>();
  /** Partitions of the retry consumer paused until a record is due, with the timer that resumes them. */
  const waiting = new Map<string, () => void>();
  const tierByTopic = new Map<string, TierDescriptor>(consumer.tiers.map((t) => [t.topic, t]));

  const keyOf = (record: ConsumedRecord) => record.message.key?.toString('utf8') ?? '';
  const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

  async function publishUntilAcknowledged(publish: () => Promise<TopicPartitionOffset>, record: ConsumedRecord): Promise<TopicPartitionOffset> {
    let wait = publishBackoff.initialMs;
    for (;;) {
      try {
        return await publish();
      } catch (error) {
        if (stopping) throw new StopRequested();
        emit({ type: 'publish-failed', record, error, retryInMs: wait });
        await waitUnlessStopped(wait);
        wait = Math.min(publishBackoff.maxMs, wait * 2);
      }
    }
  }

  /** Runs the handler with in-place retries, then routes a failure. Returns what to commit. */
  async function handle(record: ConsumedRecord, fromParking: boolean): Promise<TopicPartitionOffset> {
    const attempt = attemptOf(consumer, record.topic);
    for (let tries = 1; ; tries++) {
      try {
        await options.handler(record);
        emit({ type: 'processed', record, attempt, parked: fromParking });
        metrics.messages.inc({ consumer: consumer.name, topic: record.topic, outcome: 'success' });
        if (consumer.ordering === 'park-by-key' && (record.topic !== consumer.mainTopic || fromParking)) await releaseKey(record);
        return router.commitOffsetFor(record);
      } catch (error) {
        const destination = router.decide(record, error, tries);
        if (destination.kind === 'in-place') {
          const waitMs = router.inPlaceBackoffMs(destination.retry);
          emit({ type: 'failed-in-place', record, attempt, error, waitMs });
          await waitUnlessStopped(waitMs);
          continue;
        }
        if (consumer.ordering === 'park-by-key' && destination.kind === 'tier') await options.parkingLot!.hold(keyOf(record));
        const commit = await publishUntilAcknowledged(() => router.publish(record, error, destination), record);
        emit({ type: 'routed', record, attempt, error, destination });
        metrics.messages.inc({ consumer: consumer.name, topic: record.topic, outcome: destination.kind === 'tier' ? 'retry' : 'dlq' });
        const retryEnded = destination.kind === 'dlq' && (record.topic !== consumer.mainTopic || fromParking);
        if (consumer.ordering === 'park-by-key' && retryEnded) await releaseKey(record);
        return commit;
      }
    }
  }

  /** The key's retry ended: its parked records run now, in order, until one fails into the tiers again. */
  async function releaseKey(record: ConsumedRecord): Promise<void> {
    const lot = options.parkingLot!;
    const key = keyOf(record);
    const parked = await lot.release(key);
    for (let i = 0; i < parked.length; i++) {
      const next = parked[i]!;
      emit({ type: 'unparked', record: next, key });
      await handle(next, true);
      if (await lot.isHeld(key)) {
        for (const rest of parked.slice(i + 1)) await lot.park(key, rest);
        return;
      }
    }
  }

  async function onMainRecord(record: EachMessagePayload): Promise<void> {
    let commit: TopicPartitionOffset;
    if (consumer.ordering === 'park-by-key' && (await options.parkingLot!.isHeld(keyOf(record)))) {
      await options.parkingLot!.park(keyOf(record), record);
      emit({ type: 'parked', record, key: keyOf(record) });
      commit = router.commitOffsetFor(record);
    } else {
      commit = await handle(record, false);
    }
    await mainConsumer!.commitOffsets([commit]);
  }

  /**
   * The head of a tier partition is the record due first (R1): if it is not due, pause
   * the partition, seek back to it, and resume when it is; never early (R13). A missing
   * or garbage x-due-at, or one later than the tier's own delay allows, falls back to the
   * record's timestamp plus the delay, so no header can hold a partition forever.
   */
  async function onTierRecord(record: EachMessagePayload): Promise<void> {
    const tier = tierByTopic.get(record.topic)!;
    const id = partitionKey(record.topic, record.partition);
    if (waiting.has(id)) return; // fetched before the pause took effect; it comes again after the resume
    const written = Number(record.message.timestamp);
    const latest = Number.isFinite(written) && written >= 0 ? written + tier.delayMs : clock.now();
    const header = decodeRetryHeaders(record.message.headers).dueAt;
    const dueAt = header === undefined ? latest : Math.min(header, latest);
    const now = clock.now();
    if (now < dueAt) {
      retryConsumer!.pause([{ topic: record.topic, partitions: [record.partition] }]);
      retryConsumer!.seek({ topic: record.topic, partition: record.partition, offset: record.message.offset });
      emit({ type: 'waiting', topic: record.topic, partition: record.partition, dueAt });
      waiting.set(id, clock.setTimer(dueAt - now, () => resumePartition(record.topic, record.partition)));
      return;
    }
    metrics.lateness.observe({ consumer: consumer.name, tier: tier.label }, (now - dueAt) / 1000);
    const commit = await handle(record, false);
    await retryConsumer!.commitOffsets([commit]);
  }

  function resumePartition(topic: string, partition: number): void {
    const id = partitionKey(topic, partition);
    waiting.delete(id);
    if (stopping) return;
    try {
      retryConsumer?.resume([{ topic, partitions: [partition] }]);
    } catch {
      // The client is restarting its group (after a broker outage, say): keep the
      // partition listed, so the rejoin resumes it and the due check runs anew.
      waiting.set(id, () => {});
    }
  }

  /** After a rebalance a paused partition may be gone or come back unpaused: start over from the committed offsets. */
  function forgetWaiting(): void {
    const entries = [...waiting];
    waiting.clear();
    for (const [id, cancel] of entries) {
      cancel();
      const [topic, partition] = id.split('\u0000');
      resumePartition(topic!, Number(partition));
    }
  }

  /** Keeps track of running work so stop() can wait for it; a stop mid-publish leaves the record uncommitted. */
  function tracked(work: Promise<void>): Promise<void> {
    const settled = work.catch((error: unknown) => {
      if (!(error instanceof StopRequested)) throw error;
    });
    inFlight.add(settled);
    return settled.finally(() => inFlight.delete(settled));
  }

  return {
    metrics,
    get router() {
      return router;
    },
    async start() {
      producer = options.kafka.producer();
      await producer.connect();
      router = createRouter(consumer, { producer, clock, random: options.random, classify: options.classify, metrics, includeStackTraces: options.includeStackTraces });
      mainConsumer = options.kafka.consumer(consumer.groups.main);
      await mainConsumer.connect();
      await mainConsumer.subscribe({ topics: [consumer.mainTopic], fromBeginning: true });
      if (consumer.tiers.length > 0) {
        retryConsumer = options.kafka.consumer(consumer.groups.retry);
        await retryConsumer.connect();
        await retryConsumer.subscribe({ topics: consumer.tiers.map((t) => t.topic), fromBeginning: true });
        retryConsumer.onRebalance(forgetWaiting);
        await retryConsumer.run({ eachMessage: (record) => tracked(onTierRecord(record)) });
      }
      await mainConsumer.run({ eachMessage: (record) => tracked(onMainRecord(record)) });
    },
    async stop() {
      stopping = true;
      signalStop();
      for (const cancel of waiting.values()) cancel();
      waiting.clear();
      await Promise.all([mainConsumer?.disconnect(), retryConsumer?.disconnect()]);
      await Promise.all(inFlight);
      await producer?.disconnect();
    },
  };
}
