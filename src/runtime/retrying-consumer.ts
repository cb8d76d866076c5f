import type { Registry } from 'prom-client';
import type { Random } from './backoff';
import type { ErrorClassifier } from './classify';
import { systemClock, withLongTimers } from './clock';
import type { Clock } from './clock';
import type { ConsumerDescriptor, TierDescriptor } from './descriptor';
import { timestampOf } from './destination-record';
import { dueTimeOf, FirstSeen } from './due-time';
import type { RetryEvent, RetryEventListener } from './events';
import { decodeRetryHeaders } from './headers';
import { DLQ_DESTINATION_LABEL, initializeConsumerSeries, retryMetrics } from './metrics';
import type { RetryMetrics } from './metrics';
import { createKeyParking } from './key-parking';
import { createOffsetCommitter, DEFAULT_COMMIT_POLICY } from './offset-committer';
import type { CommitPolicy, OffsetCommitter } from './offset-committer';
import type { HandleOutcome, KeyParking } from './key-parking';
import { coalescingProducer } from './coalescing-producer';
import { createMainPipeline } from './main-pipeline';
import type { MainPipeline, RoutedFailure } from './main-pipeline';
import { DEFAULT_PARK_STATE_BUDGET } from './park-state';
import type { ConsumerPort, EachMessagePayload, KafkaPort, ProducerPort, TopicPartitionOffset } from './port';
import { publishUntilAcknowledged } from './publish-loop';
import { attemptOf } from './resolve';
import { createRouter } from './router';
import type { ConsumedRecord, RoutedDestination, Router } from './router';
import { RecordTakenAgain } from './record-taken-again';
import { StopRequested } from './stop-requested';

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
  /**
   * Park-by-key: most bytes of commit metadata one main partition's state may take; at
   * the limit the partition waits until a key's retry ends. Raise it only with the
   * broker's `offset.metadata.max.bytes` (default 4096).
   */
  readonly parkingBudgetBytes?: number;
  readonly onEvent?: RetryEventListener;
  /**
   * How offsets are committed (never before the publish is acknowledged): the records
   * done within `intervalMs` (100) go in one commit, or `maxRecords` (500) at once. A
   * crash runs those records again. `{ intervalMs: 0 }` commits each record on its own.
   * Park-by-key commits each record with its state.
   */
  readonly commit?: Partial<CommitPolicy>;
  /** Backoff between attempts to publish to a tier or the DLQ while the broker refuses. */
  readonly publishBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /**
   * Main partitions run side by side (default 6; park-by-key: each with its tier
   * partitions). Records of one partition always run one after another.
   */
  readonly partitionsConsumedConcurrently?: number;
  /**
   * Unordered consumers: most publishes to a tier or the DLQ one main partition may have
   * unacknowledged (default 256); at the limit the partition waits for one.
   */
  readonly maxPublishesInFlight?: number;
}

export interface RetryingConsumer {
  readonly metrics: RetryMetrics;
  readonly router: Router;
  /** Starts consuming. Once: a stopped consumer cannot start again (create a new one). */
  start(): Promise<void>;
  /** Finishes the records in hand, commits them, and disconnects. */
  stop(): Promise<void>;
}

export const RESTART_REFUSED = 'this retrying consumer was already started; after stop() create a new one with createRetryingConsumer()';

/** A listener that throws must not change a record's fate: its errors are dropped. */
function safely(listener: RetryEventListener | undefined): RetryEventListener {
  return (event: RetryEvent) => {
    try {
      listener?.(event);
    } catch {
      // A logging bug must not turn a success into a retry, nor stop a consumer.
    }
  };
}

/**
 * Tier consumers fetch little and wait briefly: a partition's head decides when it
 * resumes, so records fetched past it are dropped and read again, and kafkajs sleeps a
 * whole fetch wait when every partition is paused (a resumed one would be late). 16 KiB a
 * partition: at 64 KiB, kafkajs decoded some 6,000 records of a deep tier before its
 * partitions paused, and the heap that took stayed (RSS 10% above a shallow tier's,
 * against 3% at 16 KiB). A draining tier pays one fetch round trip per 16 KiB.
 */
const TIER_FETCH = { maxBytesPerPartition: 16 * 1024, maxWaitTimeInMs: 100 } as const;

/**
 * Park-by-key reads its main topic in the same consumer as its tiers: 64 KiB a
 * partition, so a busy main topic is not held to a fetch round trip per 16 KiB.
 */
const CO_PARTITIONED_FETCH = { ...TIER_FETCH, maxBytesPerPartition: 64 * 1024 } as const;

const DEFAULT_PARTITIONS_CONCURRENTLY = 6;
const DEFAULT_PUBLISHES_IN_FLIGHT = 256;

/** How soon a refused seek-and-resume of a due tier partition is tried again. */
const RESUME_RETRY_MS = 100;

/** Below kafkajs's default heartbeat interval (3 s), so a long wait never misses one. */
const HEARTBEAT_SLICE_MS = 1_000;

/**
 * A main consumer and a retry consumer for one consumer descriptor (R11-R14): failures
 * are routed to a tier or the DLQ and the offset is committed only after the publish is
 * acknowledged; tier records wait with their partition paused, never in a sleep.
 */
export function createRetryingConsumer(consumer: ConsumerDescriptor, options: RetryingConsumerOptions): RetryingConsumer {
  const clock = withLongTimers(options.clock ?? systemClock);
  const metrics = retryMetrics(options.registry);
  initializeConsumerSeries(metrics, consumer);
  const emit = safely(options.onEvent);
  /** Events are built only when someone listens: no allocation per record otherwise. */
  const listening = options.onEvent !== undefined;
  const publishBackoff = options.publishBackoff ?? { initialMs: 200, maxMs: 30_000 };
  const parkByKey = consumer.ordering === 'park-by-key';

  let producer: ProducerPort | undefined;
  let router!: Router;
  let mainConsumer: ConsumerPort | undefined;
  /** With park-by-key, the main consumer itself: one co-partitioned group reads the main topic and the tiers. */
  let retryConsumer: ConsumerPort | undefined;
  let parking: KeyParking | undefined;
  const commitPolicy: CommitPolicy = { ...DEFAULT_COMMIT_POLICY, ...options.commit };
  const reportCommitError = (error: unknown) => emit({ type: 'commit-failed', error });
  const mainCommits: OffsetCommitter = createOffsetCommitter(() => mainConsumer!, clock, commitPolicy, reportCommitError);
  const retryCommits: OffsetCommitter = createOffsetCommitter(() => retryConsumer!, clock, commitPolicy, reportCommitError);
  let started = false;
  let stopping = false;
  let signalStop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (signalStop = resolve));

  /** Waits, unless stop() comes first: then the record is left uncommitted for the next run. */
  async function waitUnlessStopped(ms: number): Promise<void> {
    await Promise.race([clock.sleep(ms), stopSignal]);
    if (stopping) throw new StopRequested();
  }
  /**
   * Waits on one record in slices, heartbeating between them, so a long in-place backoff
   * or broker outage does not cost the member its place in the group (and the group a
   * rebalance).
   */
  async function waitHeartbeating(record: ConsumedRecord, ms: number): Promise<void> {
    let left = ms;
    do {
      const slice = Math.min(left, HEARTBEAT_SLICE_MS);
      await waitUnlessStopped(slice);
      left -= slice;
      try {
        await record.heartbeat?.();
      } catch {
        // A failed heartbeat changes nothing here: the client rejoins on its own.
      }
    } while (left > 0);
  }
  const inFlight = new Set<Promise<void>>();
  /**
   * Partitions of the retry consumer waiting for their head record to be due: its offset,
   * and the timer that seeks back to it and resumes the partition. Listed before the pause
   * and the seek, so that whichever of them fails, the timer still brings the partition
   * back to its head.
   */
  const waiting = new Map<string, { readonly head: string; cancel: () => void }>();
  /** Timers of refused pauses and resumes of key parking, tried again; cancelled by stop(). */
  const retries = new Set<() => void>();
  const tierByTopic = new Map<string, TierDescriptor>(consumer.tiers.map((t) => [t.topic, t]));
  /** Each tier's lateness series, its labels looked up once. */
  const latenessByTopic = new Map(consumer.tiers.map((t) => [t.topic, metrics.lateness.labels(consumer.name, t.label)]));
  const firstSeen = new FirstSeen();
  /** Rebalances of the consumer that reads the tiers (with park-by-key, also the main topic) so far. */
  let revocations = 0;

  /** The attempt a record is on, as its tier or DLQ record says it (a draining tier's records count their x-attempt). Events only. */
  const attemptOfRecord = (record: ConsumedRecord) => attemptOf(consumer, record.topic, decodeRetryHeaders(record.message.headers).attempt);
  const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

  /** `abandoned`: the record was taken again (a rebalance, a seek), so this publish gives up at its next try. */
  function publish(record: ConsumedRecord, error: unknown, destination: RoutedDestination, abandoned: () => boolean = () => false): Promise<TopicPartitionOffset> {
    return publishUntilAcknowledged({
      publish: (publishOptions) => router.publish(record, error, destination, publishOptions),
      // Park-by-key needs tier partition p for main partition p; a DLQ record has no order to keep.
      mayRepartition: !parkByKey || destination.kind === 'dlq',
      backoff: publishBackoff,
      wait: async (ms) => {
        await waitHeartbeating(record, ms);
        if (abandoned()) throw new RecordTakenAgain();
      },
      onFailure: ({ error: failure, reason, retryInMs }) => {
        // A publish cut short by stop() is no failure: the record stays uncommitted for the next run.
        if (stopping) throw new StopRequested();
        if (abandoned()) throw new RecordTakenAgain();
        metrics.publishFailures.inc({ consumer: consumer.name, destination: destination.kind === 'tier' ? destination.tier.label : DLQ_DESTINATION_LABEL, reason });
        if (listening) emit({ type: 'publish-failed', record, error: failure, retryInMs, destination, reason });
      },
    });
  }

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

  /** After the handler threw: its in-place retries, then where the record goes (nothing when a retry succeeded). */
  async function afterFailure(record: ConsumedRecord, firstError: unknown): Promise<RoutedFailure | undefined> {
    let error = firstError;
    for (let tries = 1; ; tries++) {
      const destination = router.decide(record, error, tries);
      if (destination.kind !== 'in-place') return { error, destination };
      const waitMs = router.inPlaceBackoffMs(destination.retry);
      if (listening) emit({ type: 'failed-in-place', record, attempt: attemptOfRecord(record), error, waitMs });
      await waitHeartbeating(record, waitMs);
      try {
        await options.handler(record);
        return undefined;
      } catch (next) {
        error = next;
      }
    }
  }

  /** Runs the handler with its in-place retries: nothing on success, else where the record goes. */
  async function runHandler(record: ConsumedRecord): Promise<RoutedFailure | undefined> {
    try {
      await options.handler(record);
      return undefined;
    } catch (error) {
      return afterFailure(record, error);
    }
  }

  function routed(record: ConsumedRecord, { error, destination }: RoutedFailure): void {
    if (listening) emit({ type: 'routed', record, attempt: attemptOfRecord(record), error, destination });
    outcomeCell(record.topic, destination.kind === 'tier' ? 'retry' : 'dlq').inc();
  }

  /** Runs the handler with in-place retries, then routes a failure. Says where the record went and what to commit. */
  async function handle(record: ConsumedRecord, fromParking: boolean): Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }> {
    const failure = await runHandler(record);
    if (failure === undefined) {
      if (listening) emit({ type: 'processed', record, attempt: attemptOfRecord(record), parked: fromParking });
      outcomeCell(record.topic, 'success').inc();
      return { outcome: 'success', commit: router.commitOffsetFor(record) };
    }
    // A rebalance ends the loop: the partition may be another member's now, which reads the record again.
    const startedIn = revocations;
    const commit = await publish(record, failure.error, failure.destination, () => revocations !== startedIn);
    routed(record, failure);
    return { outcome: failure.destination.kind, commit };
  }

  const mainAttempt = attemptOf(consumer, consumer.mainTopic);
  const pipeline: MainPipeline = createMainPipeline({
    consumer: () => mainConsumer!,
    handler: options.handler,
    afterFailure,
    publish: async (record, { error, destination }, abandoned) => void (await publish(record, error, destination, abandoned)),
    routed,
    processed: listening ? (record) => emit({ type: 'processed', record, attempt: mainAttempt, parked: false }) : undefined,
    success: outcomeCell(consumer.mainTopic, 'success'),
    commits: mainCommits,
    stopping: () => stopping,
    track: (work) => void tracked(work),
    onCommitError: reportCommitError,
    maxInFlight: options.maxPublishesInFlight ?? DEFAULT_PUBLISHES_IN_FLIGHT,
    now: () => clock.now(),
  });

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
    const now = clock.now();
    const dueAt = dueTimeOf({
      header: decodeRetryHeaders(record.message.headers).dueAt,
      writtenAt: timestampOf(record),
      firstSeenAt: firstSeen.at(id, record.message.offset, now),
      delayMs: tier.delayMs,
    });
    if (now < dueAt) {
      waiting.set(id, { head: record.message.offset, cancel: clock.setTimer(dueAt - now, () => resumePartition(record.topic, record.partition)) });
      retryConsumer!.pause([{ topic: record.topic, partitions: [record.partition] }]);
      retryConsumer!.seek({ topic: record.topic, partition: record.partition, offset: record.message.offset });
      emit({ type: 'waiting', topic: record.topic, partition: record.partition, dueAt });
      return;
    }
    firstSeen.done(id);
    latenessByTopic.get(record.topic)!.observe((now - dueAt) / 1000);
    const { outcome, commit } = await handle(record, false);
    if (parking) await parking.onTierRecord(record, outcome, commit);
    else await retryCommits.mark(commit);
  }

  /**
   * Seeks a waiting partition back to its head and resumes it. Records read past the head
   * while a pause had not taken effect (or had failed) were skipped, so the head is read
   * again in any case. A refused seek or resume is tried again shortly: no partition stays
   * paused once the client answers again.
   */
  function resumePartition(topic: string, partition: number): void {
    const id = partitionKey(topic, partition);
    const entry = waiting.get(id);
    if (entry === undefined || stopping) return;
    try {
      retryConsumer?.seek({ topic, partition, offset: entry.head });
      retryConsumer?.resume([{ topic, partitions: [partition] }]);
      waiting.delete(id);
    } catch {
      // The client is restarting its group (after a broker outage, say), or refused: try again.
      entry.cancel = clock.setTimer(RESUME_RETRY_MS, () => resumePartition(topic, partition));
    }
  }

  /** After a rebalance a paused partition may be gone or come back unpaused: start over from the committed offsets. */
  function forgetWaiting(): void {
    revocations++;
    parking?.forget();
    retryCommits.forget();
    firstSeen.clear();
    const entries = [...waiting];
    waiting.clear();
    for (const [id, { cancel }] of entries) {
      cancel();
      const [topic, partition] = id.split('\u0000');
      try {
        retryConsumer?.resume([{ topic: topic!, partitions: [Number(partition)] }]);
      } catch {
        // Not ours any more: its new owner reads it from the committed offset.
      }
    }
  }

  /** Runs a record unless stop() began: then its partition pauses and the record is left for the next run. */
  function eachMessageOf(client: () => ConsumerPort, work: (record: EachMessagePayload) => Promise<void>) {
    return async (record: EachMessagePayload): Promise<void> => {
      if (stopping) {
        client().pause([{ topic: record.topic, partitions: [record.partition] }]);
        return;
      }
      return tracked(work(record));
    };
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
      if (started) throw new Error(RESTART_REFUSED);
      started = true;
      // Publishes of partitions side by side go out together, one request at a time.
      producer = coalescingProducer(options.kafka.producer());
      await producer.connect();
      router = createRouter(consumer, { producer, clock, random: options.random, classify: options.classify, metrics, includeStackTraces: options.includeStackTraces });
      const tierTopics = consumer.tiers.map((t) => t.topic);
      if (parkByKey && tierTopics.length > 0) {
        // One group, co-partitioned: the member owning main partition p owns tier partitions p too.
        mainConsumer = retryConsumer = options.kafka.consumer(consumer.groups.main, { coPartitioned: true, ...CO_PARTITIONED_FETCH });
        parking = createKeyParking({
          mainTopic: consumer.mainTopic,
          consumer: () => mainConsumer!,
          handle: async (record, parked) => (await handle(record, parked)).outcome,
          emit,
          budgetBytes: options.parkingBudgetBytes ?? DEFAULT_PARK_STATE_BUDGET,
          retryLater: (work) => {
            const cancel = clock.setTimer(RESUME_RETRY_MS, () => {
              retries.delete(cancel);
              if (!stopping) work();
            });
            retries.add(cancel);
          },
        });
        await mainConsumer.connect();
        await mainConsumer.subscribe({ topics: [consumer.mainTopic, ...tierTopics], fromBeginning: true });
        mainConsumer.onRebalance(forgetWaiting);
        await mainConsumer.run({
          eachMessage: eachMessageOf(() => mainConsumer!, (record) => (record.topic === consumer.mainTopic ? parking!.onMainRecord(record) : onTierRecord(record))),
          // Main partitions move on side by side, and beside each its tier partitions, as
          // separate consumers would (each main partition's state has its own lock). (With
          // one at a time, the Confluent client skipped tier records after a member died.)
          partitionsConsumedConcurrently: (1 + tierTopics.length) * (options.partitionsConsumedConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY),
        });
        return;
      }
      mainConsumer = options.kafka.consumer(consumer.groups.main);
      await mainConsumer.connect();
      await mainConsumer.subscribe({ topics: [consumer.mainTopic], fromBeginning: true });
      mainConsumer.onRebalance(() => {
        pipeline.forget();
        mainCommits.forget();
      });
      if (tierTopics.length > 0) {
        retryConsumer = options.kafka.consumer(consumer.groups.retry, TIER_FETCH);
        await retryConsumer.connect();
        await retryConsumer.subscribe({ topics: tierTopics, fromBeginning: true });
        retryConsumer.onRebalance(forgetWaiting);
        await retryConsumer.run({ eachMessage: eachMessageOf(() => retryConsumer!, onTierRecord) });
      }
      await mainConsumer.run({
        eachBatch: (batch) => (stopping ? Promise.resolve(mainConsumer!.pause([{ topic: batch.topic, partitions: [batch.partition] }])) : tracked(pipeline.onBatch(batch))),
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY,
      });
    },
    async stop() {
      stopping = true;
      signalStop();
      for (const { cancel } of waiting.values()) cancel();
      waiting.clear();
      for (const cancel of retries) cancel();
      retries.clear();
      // Finish the records in hand and the publishes in flight, commit what is done, then
      // leave the groups. A record that failed here stays uncommitted; stop() goes on, so
      // the member still leaves.
      pipeline.release();
      await Promise.allSettled(inFlight);
      await Promise.all([mainCommits.flush(), retryCommits.flush()]).catch(reportCommitError);
      // What the last flush could not commit runs again in the next run; no timer may keep the process alive.
      mainCommits.close();
      retryCommits.close();
      const left = await Promise.allSettled([...new Set([mainConsumer, retryConsumer])].map((c) => c?.disconnect()));
      await Promise.allSettled(inFlight);
      await producer?.disconnect();
      const refused = left.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (refused) throw refused.reason;
    },
  };
}
