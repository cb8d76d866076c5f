import type { Registry } from 'prom-client';
import type { Random } from './backoff';
import type { ErrorClassifier } from './classify';
import { systemClock, withLongTimers } from './clock';
import type { Clock } from './clock';
import { coalescingProducer } from './coalescing-producer';
import type { ConsumerDescriptor } from './descriptor';
import type { RetryEvent, RetryEventListener } from './events';
import { FinishedOffsets } from './finished-offsets';
import { createKeyParking } from './key-parking';
import type { KeyParking } from './key-parking';
import { groupCommitOf } from './group-commit';
import { LogIds } from './log-ids';
import { createMainPipeline } from './main-pipeline';
import type { MainPipeline } from './main-pipeline';
import { initializeConsumerSeries, retryMetrics } from './metrics';
import type { RetryMetrics } from './metrics';
import { createOffsetCommitter, DEFAULT_COMMIT_POLICY } from './offset-committer';
import type { CommitPolicy, OffsetCommitter } from './offset-committer';
import { DEFAULT_PARK_STATE_BUDGET } from './park-state';
import type { ConsumerPort, EachMessagePayload, KafkaPort, ProducerPort } from './port';
import { createRecordHandler } from './record-handler';
import type { StartedRecordHandler } from './record-handler';
import { createRouter } from './router';
import type { ConsumedRecord, Router } from './router';
import { settlesWithin } from './settles-within';
import { StopRequested } from './stop-requested';
import { retriableForClient } from './take-again';
import { RESUME_RETRY_MS } from './resume-retry';
import { createTierPipeline } from './tier-pipeline';
import type { ValueDecoder, ValueOf } from './value-codec';
import type { TierPipeline } from './tier-pipeline';
import { KrtError } from './krt-error';

/**
 * `Received` is what the handler receives: the consumed record, or with a value codec a
 * `DecodedRecord<Value>` (the generated router package picks it from the spec).
 */
export interface RetryingConsumerOptions<Received extends ConsumedRecord = ConsumedRecord> {
  readonly kafka: KafkaPort;
  /** Your handler: resolve when the record is done, throw when it failed. */
  readonly handler: (record: Received) => Promise<void>;
  /**
   * Decodes each record's value for the handler (`record.value`), so it returns the value the
   * handler is typed with. A value it refuses (a DeserializationError, e.g. `refuse()`) goes to
   * the DLQ at attempt 1; its other errors go through the error policy. Default: the codec the
   * descriptor carries, if any.
   */
  readonly decodeValue?: ValueDecoder<ValueOf<Received>> | undefined;
  readonly clock?: Clock | undefined;
  readonly random?: Random | undefined;
  readonly classify?: ErrorClassifier | undefined;
  /** Where the metrics go; a fresh registry by default. */
  readonly registry?: Registry | undefined;
  readonly includeStackTraces?: boolean | undefined;
  /**
   * Park-by-key: most bytes of commit metadata one main partition's state may take; at
   * the limit the partition waits until a key's retry ends. Raise it only with the
   * broker's `offset.metadata.max.bytes` (default 4096).
   */
  readonly parkingBudgetBytes?: number | undefined;
  /**
   * Park-by-key: how long a key may stay held before its hold is released as lost (its
   * tier record gone with the tiers' retention, or the tier recreated). Default: every
   * tier's delay plus 7 days, the tiers' default retention; set it from yours.
   */
  readonly parkedHoldExpiryMs?: number | undefined;
  readonly onEvent?: RetryEventListener | undefined;
  /**
   * How offsets are committed (never before the publish is acknowledged): the records
   * done within `intervalMs` (100) go in one commit, or `maxRecords` (10,000) at once. A
   * crash runs those records again. `{ intervalMs: 0 }` commits each record on its own.
   * Park-by-key commits each record with its state.
   */
  readonly commit?: Partial<CommitPolicy> | undefined;
  /** Backoff between attempts to publish to a tier or the DLQ while the broker refuses. */
  readonly publishBackoff?: { readonly initialMs: number; readonly maxMs: number } | undefined;
  /**
   * Main partitions run side by side (default 6; park-by-key: each with its tier
   * partitions). Records of one partition always run one after another.
   */
  readonly partitionsConsumedConcurrently?: number | undefined;
  /**
   * Unordered consumers: most publishes to a tier or the DLQ one main partition may have
   * unacknowledged (default 256); at the limit the partition waits for one.
   */
  readonly maxPublishesInFlight?: number | undefined;
  /**
   * Longest stop() waits for the records in hand (your handler, value decoder and
   * classifier) before it commits what is done and leaves the groups (default 10 s, as
   * Spring Kafka's shutdown timeout). A record still running then is not committed: the
   * next run reads it again.
   */
  readonly drainTimeoutMs?: number | undefined;
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
export const STOPPED_BEFORE_START = 'this retrying consumer was stopped before it started; create a new one with createRetryingConsumer()';

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

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/** How long stop() waits for each client's close (leaving the group, the producer's flush) before it gives up waiting. */
const CLOSE_PATIENCE_MS = 10_000;
const DEFAULT_PARTITIONS_CONCURRENTLY = 6;
/** The tiers' default retention.ms (the spec's default tier retention). */
const DEFAULT_TIER_RETENTION_MS = 7 * 24 * 3_600_000;
const DEFAULT_PUBLISHES_IN_FLIGHT = 256;

/** Below kafkajs's default heartbeat interval (3 s), so a long wait never misses one. */
const HEARTBEAT_SLICE_MS = 1_000;

/**
 * A main consumer and a retry consumer for one consumer descriptor (R11-R14): failures
 * are routed to a tier or the DLQ and the offset is committed only after the publish is
 * acknowledged; tier records wait with their partition paused, never in a sleep. This
 * wires the parts (record handler, main pipeline, tier pipeline, key parking, committers)
 * to the clients and runs the lifecycle.
 */
export function createRetryingConsumer<Received extends ConsumedRecord = ConsumedRecord>(consumer: ConsumerDescriptor, options: RetryingConsumerOptions<Received>): RetryingConsumer {
  const clock = withLongTimers(options.clock ?? systemClock);
  const metrics = retryMetrics(options.registry);
  initializeConsumerSeries(metrics, consumer);
  const emit = safely(options.onEvent);
  const parkByKey = consumer.ordering === 'park-by-key';

  let producer: ProducerPort | undefined;
  let router!: Router;
  let mainConsumer: ConsumerPort | undefined;
  /** With park-by-key, the main consumer itself: one co-partitioned group reads the main topic and the tiers. */
  let retryConsumer: ConsumerPort | undefined;
  let parking: KeyParking | undefined;
  const commitPolicy: CommitPolicy = { ...DEFAULT_COMMIT_POLICY, ...options.commit };
  const reportCommitError = (error: unknown) => emit({ type: 'commit-failed', error });
  // Unordered commits are stamped as this member's own (see own-commit-stamp.ts); park-by-key's carry its state instead.
  const stamping = { stampOwnCommits: !parkByKey };
  const mainCommits: OffsetCommitter = createOffsetCommitter(() => mainConsumer!, clock, commitPolicy, reportCommitError, stamping);
  const retryCommits: OffsetCommitter = createOffsetCommitter(() => retryConsumer!, clock, commitPolicy, reportCommitError, stamping);
  let started = false;
  let stopping = false;
  /** start()'s connects, subscribes and runs, settled: stop() waits for them before it says nothing runs. */
  let startup: Promise<void> = Promise.resolve();
  let signalStop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (signalStop = resolve));
  const inFlight = new Set<Promise<void>>();
  /** Settles when stop()'s drain deadline passes: user code still running then is left behind, uncommitted. */
  let signalDrainOver!: () => void;
  const drainOver = new Promise<void>((resolve) => (signalDrainOver = resolve));
  /** Timers of refused pauses and resumes of key parking, tried again; cancelled by stop(). */
  const retries = new Set<() => void>();

  /** Waits, unless stop() comes first: then the record is left uncommitted for the next run. */
  async function waitUnlessStopped(ms: number): Promise<void> {
    // Its timer is cancelled when stop() comes first: one left behind kept the process alive (attack 32).
    await settlesWithin(clock, stopSignal, ms);
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

  const records: StartedRecordHandler = createRecordHandler({
    consumer,
    // The decoder makes the record the handler was typed for.
    handler: options.handler as (record: ConsumedRecord) => Promise<void>,
    decodeValue: options.decodeValue,
    router: () => router,
    metrics,
    emit,
    listening: options.onEvent !== undefined,
    publishBackoff: options.publishBackoff ?? { initialMs: 200, maxMs: 30_000 },
    waitHeartbeating,
    stopping: () => stopping,
  });

  /** The topic id each partition was last read under (where the client tells ids): kept across rebalances. */
  const logIds = new LogIds();
  const pipeline: MainPipeline = createMainPipeline({
    consumer: () => mainConsumer!,
    records,
    commits: mainCommits,
    stopping: () => stopping,
    track: (work) => void tracked(work),
    onCommitError: reportCommitError,
    maxInFlight: options.maxPublishesInFlight ?? DEFAULT_PUBLISHES_IN_FLIGHT,
    now: () => clock.now(),
    clock,
    logIds,
  });

  /** Tier records this member finished: a rebalance that lost their commit does not run them again. */
  const tiersFinished = new FinishedOffsets();
  const tiers: TierPipeline = createTierPipeline({
    consumer,
    client: () => retryConsumer!,
    clock,
    metrics,
    emit,
    records,
    due: async (record, handle, held) => {
      if (parking) return parking.onTierRecord(record, handle, held);
      const acknowledged = retryCommits.acknowledgedOffset(record.topic, record.partition);
      const startsOver = () => retryCommits.startsOver(record.topic, record.partition);
      if (tiersFinished.mustJudge(record)) {
        const read = await groupCommitOf(retryConsumer!, record, clock);
        const own = read !== undefined && retryCommits.isOwnCommit(record.topic, record.partition, read.offset, read.metadata);
        tiersFinished.judge(record, read?.offset, acknowledged, own, startsOver);
      }
      if (tiersFinished.has(record, acknowledged, startsOver)) return retryCommits.mark(router.commitOffsetFor(record));
      const startedIn = retryCommits.generation;
      const { commit } = await handle();
      tiersFinished.add(commit);
      // Finished after a rebalance: not committed in the next generation, which reads it
      // again from the commit and, finding it finished, commits it then.
      await retryCommits.mark(commit, startedIn);
    },
    stopping: () => stopping,
    logIds,
    onNewLog: (topic, partition) => {
      tiersFinished.newLog(topic, partition);
      retryCommits.startsOver(topic, partition);
      parking?.tierLogRecreated(topic, partition);
    },
  });

  /** Rebalances of the consumer that reads the tiers (and, with park-by-key, the main topic) so far. */
  let rebalances = 0;
  /** After a rebalance of the consumer that reads the tiers: every part starts over from the committed offsets. */
  function forgetWaiting(): void {
    rebalances++;
    tiersFinished.rebalanced();
    records.revoke();
    parking?.forget();
    retryCommits.forget();
    tiers.forget();
  }

  /**
   * Runs a record unless stop() began: then its partition pauses and the record is left for
   * the next run. A failure of a record fetched before a rebalance is not thrown to the
   * client: the rebalance reads the partition again from its commit, and the Confluent
   * client's answer to a throw, a seek back to that record, would then move the partition
   * past the records before it that the rebalance forgot (tier records waiting their turn),
   * which would never be read again.
   */
  function eachMessageOf(client: () => ConsumerPort, work: (record: EachMessagePayload) => Promise<void>) {
    return async (record: EachMessagePayload): Promise<void> => {
      if (stopping) {
        client().pause([{ topic: record.topic, partitions: [record.partition] }]);
        return;
      }
      const fetchedAfter = rebalances;
      return tracked(work(record)).catch((error: unknown) => {
        if (rebalances !== fetchedAfter) return;
        throw retriableForClient(error);
      });
    };
  }

  /**
   * Keeps track of running work so stop() can wait for it; a stop mid-publish leaves the
   * record uncommitted. The one place that bounds user code at stop: every record's work
   * (handler, value decoder, classifier, publish) goes through here, and once the drain
   * deadline passes it counts as settled, for stop() and for the client (kafkajs's
   * disconnect waits for the eachMessage or eachBatch call in progress). Its record is not
   * committed: the committer takes only what finished.
   */
  function tracked(work: Promise<void>): Promise<void> {
    const settled = work.catch((error: unknown) => {
      if (!(error instanceof StopRequested)) throw error;
    });
    const bounded = Promise.race([settled, drainOver]);
    inFlight.add(bounded);
    return bounded.finally(() => inFlight.delete(bounded));
  }

  return {
    metrics,
    get router() {
      return router;
    },
    async start() {
      if (started) throw new KrtError(RESTART_REFUSED, { exit: 'usage' });
      // Its clients would connect after stop() left: nothing would disconnect them, and they keep the process alive.
      if (stopping) throw new KrtError(STOPPED_BEFORE_START, { exit: 'usage' });
      started = true;
      records.started();
      startup = startClients();
      await startup;
    },
    stop,
  };

  /**
   * Connects, subscribes and runs the clients. stop() may come while any step waits for the
   * broker (a SIGTERM as the service starts): no step after it is taken, so no client joins
   * a group once stop() began, and stop() leaves with those already connected.
   */
  async function startClients(): Promise<void> {
    // Publishes of partitions side by side go out together, one request at a time.
    producer = coalescingProducer(options.kafka.producer());
    await producer.connect();
    if (stopping) return;
    router = createRouter(consumer, { producer, clock, random: options.random, classify: options.classify, metrics, includeStackTraces: options.includeStackTraces });
    const tierTopics = consumer.tiers.map((t) => t.topic);
    if (parkByKey && tierTopics.length > 0) {
      // One group, co-partitioned: the member owning main partition p owns tier partitions p too.
      mainConsumer = retryConsumer = options.kafka.consumer(consumer.groups.main, { coPartitioned: true, ...CO_PARTITIONED_FETCH });
      parking = createKeyParking({
        mainTopic: consumer.mainTopic,
        tierTopics,
        consumer: () => mainConsumer!,
        handle: async (record, parked, parkState) => (await records.handle(record, parked, undefined, parkState)).outcome,
        commitOffsetFor: (record) => router.commitOffsetFor(record),
        emit,
        budgetBytes: options.parkingBudgetBytes ?? DEFAULT_PARK_STATE_BUDGET,
        holdExpiryMs: options.parkedHoldExpiryMs ?? consumer.tiers.reduce((sum, t) => sum + t.delayMs, 0) + DEFAULT_TIER_RETENTION_MS,
        now: () => clock.now(),
        logIds,
        setTimer: (ms, work) => {
          // Once stop() began, no timer: work still in hand asks for one (a hold's expiry, a
          // week away) after stop() cancelled the others, and it kept the process alive.
          if (stopping) return () => undefined;
          const cancel = clock.setTimer(ms, () => {
            retries.delete(cancel);
            if (!stopping) work();
          });
          retries.add(cancel);
          return () => {
            retries.delete(cancel);
            cancel();
          };
        },
        retryLater: (work) => {
          if (stopping) return;
          const cancel = clock.setTimer(RESUME_RETRY_MS, () => {
            retries.delete(cancel);
            if (!stopping) work();
          });
          retries.add(cancel);
        },
        // A hold's expiry or a give-up runs the handler on a timer: stop() waits for it too (found by attack 30).
        track: (work) => void tracked(work),
        sleep: waitUnlessStopped,
      });
      await mainConsumer.connect();
      if (stopping) return;
      await mainConsumer.subscribe({ topics: [consumer.mainTopic, ...tierTopics], fromBeginning: true });
      if (stopping) return;
      mainConsumer.onRebalance(forgetWaiting);
      await mainConsumer.run({
        eachMessage: eachMessageOf(() => mainConsumer!, (record) => (record.topic === consumer.mainTopic ? parking!.onMainRecord(record) : tiers.onRecord(record))),
        // Main partitions move on side by side, and beside each its tier partitions, as
        // separate consumers would (each main partition's state has its own lock). Tier
        // records once skipped on the Confluent client after a member died were likelier
        // round robin's doing (it does not co-partition); with range, park-by-key runs there.
        partitionsConsumedConcurrently: (1 + tierTopics.length) * (options.partitionsConsumedConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY),
      });
      return;
    }
    mainConsumer = options.kafka.consumer(consumer.groups.main);
    await mainConsumer.connect();
    if (stopping) return;
    await mainConsumer.subscribe({ topics: [consumer.mainTopic], fromBeginning: true });
    if (stopping) return;
    mainConsumer.onRebalance(() => {
      pipeline.forget();
      mainCommits.forget();
    });
    if (tierTopics.length > 0) {
      retryConsumer = options.kafka.consumer(consumer.groups.retry, TIER_FETCH);
      await retryConsumer.connect();
      if (stopping) return;
      await retryConsumer.subscribe({ topics: tierTopics, fromBeginning: true });
      if (stopping) return;
      retryConsumer.onRebalance(forgetWaiting);
      await retryConsumer.run({ eachMessage: eachMessageOf(() => retryConsumer!, (record) => tiers.onRecord(record)) });
      if (stopping) return;
    }
    await mainConsumer.run({
      eachBatch: (batch) =>
        stopping
          ? Promise.resolve(mainConsumer!.pause([{ topic: batch.topic, partitions: [batch.partition] }]))
          : tracked(pipeline.onBatch(batch)).catch((error: unknown) => {
              throw retriableForClient(error);
            }),
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY,
    });
  }

  async function stop(): Promise<void> {
    const cancelTimers = () => {
      tiers.close();
      for (const cancel of retries) cancel();
      retries.clear();
    };
    stopping = true;
    signalStop();
    const cancelDrainDeadline = clock.setTimer(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS, signalDrainOver);
    cancelTimers();
    // Finish the records in hand and the publishes in flight, commit what is done, then
    // leave the groups. A record that failed here stays uncommitted; stop() goes on, so
    // the member still leaves.
    pipeline.release();
    mainCommits.release();
    retryCommits.release();
    // Until none is left: a record in hand when stop() began may fail after it and start
    // its publish later; acknowledged before the last flush, it is committed, not run again.
    while (inFlight.size > 0) await Promise.allSettled(inFlight);
    // Within the drain deadline too: the flush waits for the commit in flight (on the Confluent
    // client a commit and its confirming read); what it has not committed by then runs again.
    await Promise.race([Promise.all([mainCommits.flush(), retryCommits.flush()]).catch(reportCommitError), drainOver]);
    // What the last flush could not commit runs again in the next run; no timer may keep the process alive.
    mainCommits.close();
    retryCommits.close();
    const leaveGroups = () => Promise.allSettled([...new Set([mainConsumer, retryConsumer])].map((c) => c?.disconnect()));
    // Each client's close is waited for at most CLOSE_PATIENCE_MS: with the broker away the
    // Confluent consumer's close (rd_kafka_consumer_close) waited until the broker was back, and
    // stop() never returned (attack 46). It goes on in the background; stop() then says so.
    const leaving = leaveGroups();
    let closedInTime = await settlesWithin(clock, leaving, CLOSE_PATIENCE_MS);
    // A start() still waiting on the broker takes no further step; a client it was connecting connected after the leave above.
    await Promise.race([startup.catch(() => undefined), drainOver]);
    if (closedInTime) closedInTime = await settlesWithin(clock, leaveGroups(), CLOSE_PATIENCE_MS);
    await Promise.allSettled(inFlight);
    // Work that ended during the drain may have asked for a timer after the first cancel
    // (a tier partition waiting for its head): none may keep the process alive.
    cancelTimers();
    cancelDrainDeadline();
    const producerClosing = producer?.disconnect();
    if (producerClosing !== undefined && !(await settlesWithin(clock, producerClosing, CLOSE_PATIENCE_MS))) closedInTime = false;
    if (!closedInTime) {
      throw new KrtError(
        `stop(): consumer ${consumer.name}'s clients did not close within ${CLOSE_PATIENCE_MS / 1000} s (is the broker away?); they go on closing in the background. ` +
          'What was not committed runs again at the next start, and the group gives this member\'s partitions to others when its session ends.',
      );
    }
    const refused = (await leaving).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refused) throw refused.reason;
    await producerClosing; // a refusal of the producer's close is reported as before
  }
}
