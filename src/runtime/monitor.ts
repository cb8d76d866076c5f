import type { Registry } from 'prom-client';
import type { ConsumerDescriptor } from './descriptor';
import { partitionBacklog } from './dlq-handled';
import { createHandledStates } from './monitor-handled-states';
import { retryMetrics } from './metrics';
import { forgetMonitorGauges } from './monitor-forget';
import { startPollLoop } from './monitor-loop';
import type { PollLoop } from './monitor-loop';
import { collectMainLag } from './monitor-main-lag';
import { collectTierOverdue } from './monitor-tier-overdue';
import { createHeadTimes } from './monitor-head-times';
import type { RetryMetrics } from './metrics';
import type { MonitorPort } from './monitor-port';
import { KrtError } from './krt-error';
import { describeError } from './describe-error';

export interface DlqMonitorOptions {
  readonly port: MonitorPort;
  readonly registry?: Registry | undefined;
  /** The pause between the end of one poll and the start of the next; default 30 s. */
  readonly intervalMs?: number | undefined;
  /** A failed poll of `start()`, and a head record it could not read. */
  readonly onError?: ((error: unknown) => void) | undefined;
  /**
   * How long a poll may run before it counts as failed: its gauges are dropped (frozen
   * values would look healthy) and the poll loop goes on; a poll that ends later sets them
   * again. Default ten intervals, at least 5 minutes (the gap the rules bridge).
   */
  readonly pollDeadlineMs?: number | undefined;
}

/** The least default deadline of a poll: the 5-minute gap the alert rules bridge. */
const MIN_POLL_DEADLINE_MS = 5 * 60_000;

export interface DlqSnapshot {
  readonly dlqSize: number;
  /**
   * Epoch ms of the oldest unhandled DLQ record still in the log, absent when there is
   * none: what kafka_dlq_oldest_unhandled_timestamp_seconds reports, the value it keeps
   * included when a head record could not be read.
   */
  readonly oldestUnhandledAt?: number;
  /** Unhandled DLQ records retention deleted, ever: what kafka_dlq_expired_total reports. */
  readonly dlqExpired: number;
  readonly tierLag: Readonly<Record<string, number>>;
}

export interface DlqMonitor {
  readonly metrics: RetryMetrics;
  /**
   * Reads Kafka once and sets the gauges; a call while a poll runs shares that poll. A
   * poll that fails drops this consumer's gauges before it rejects: Prometheus then sees
   * them missing (KafkaRetryMonitorDown) instead of stale values it would alert on.
   * `signal` ends a head-record read under way (the poll loop stops): the poll then rejects.
   */
  poll(signal?: AbortSignal): Promise<DlqSnapshot>;
  /** Polls at once, then again `intervalMs` after each poll ends (the shared poll loop): polls never overlap. */
  start(): void;
  /** Stops polling; resolves once the poll in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * The DLQ and tier monitor behind the gauges the alerts query: kafka_dlq_size (unhandled
 * records still in the DLQ), the timestamp of the oldest of them, kafka_dlq_expired_total
 * (unhandled records retention deleted) and kafka_retry_tier_lag (tier end offsets minus
 * the retry group's). Everything is derived from Kafka's state on each poll, so a
 * restarted monitor reports the same values, the expired total included.
 */
export function createDlqMonitor(consumer: ConsumerDescriptor, options: DlqMonitorOptions): DlqMonitor {
  const metrics = retryMetrics(options.registry);
  const labels = { consumer: consumer.name, topic: consumer.dlqTopic };
  let loop: PollLoop | undefined;
  let inFlight: Promise<DlqSnapshot> | undefined;
  // The expired total already added to the counter: each poll adds what Kafka's state says beyond it.
  let countedExpired = 0;
  // The oldest-record timestamp reported last: kept while a head record cannot be read.
  let shownOldest: number | undefined;
  // The write times of the tier and main heads read before: a head not read again still ages.
  const heads = createHeadTimes();
  const handledStates = createHandledStates(consumer, options.port, (error) => options.onError?.(error));

  async function lagOf(topic: string, groupId: string): Promise<number> {
    const [ends, committed] = await Promise.all([options.port.endOffsets(topic), options.port.committedOffsets(groupId, topic)]);
    const byPartition = new Map(committed.map((c) => [c.partition, BigInt(c.offset)]));
    return ends.reduce((sum, e) => {
      // Offsets below the log start (none committed yet, or deleted by retention) wait for nothing.
      const done = byPartition.get(e.partition) ?? -1n;
      const from = done < BigInt(e.low) ? BigInt(e.low) : done;
      return sum + Number(BigInt(e.high) > from ? BigInt(e.high) - from : 0n);
    }, 0);
  }

  async function pollOnce(signal?: AbortSignal): Promise<DlqSnapshot> {
    const [ends, committed] = await Promise.all([
      options.port.endOffsets(consumer.dlqTopic),
      options.port.committedOffsets(consumer.groups.replay, consumer.dlqTopic),
    ]);
    const states = await handledStates(ends, committed, signal);
    let size = 0;
    let expired = 0;
    const oldestOffsets: { partition: number; offset: string; end: string }[] = [];
    for (const e of ends) {
      const backlog = partitionBacklog(states.get(e.partition)!, BigInt(e.low), BigInt(e.high));
      size += backlog.unhandled;
      expired += backlog.expired;
      if (backlog.first !== undefined) oldestOffsets.push({ partition: e.partition, offset: backlog.first.toString(), end: e.high });
    }
    let unreadBecause: unknown;
    const timestamps =
      oldestOffsets.length > 0
        ? await options.port.timestampsAt(consumer.dlqTopic, oldestOffsets, signal).catch((error: unknown) => {
            if (signal?.aborted) throw error;
            unreadBecause = error;
            return new Map<number, number | null>();
          })
        : new Map<number, number | null>();
    // A partition read to its end without a record (transaction markers alone) has no oldest record.
    const read = [...timestamps.values()].filter((t): t is number => t !== null);
    const oldestRead = read.length > 0 ? Math.min(...read) : undefined;
    metrics.dlqSize.set(labels, size);
    metrics.dlqExpired.inc(labels, Math.max(0, expired - countedExpired));
    countedExpired = expired;
    if (oldestOffsets.length === 0 || timestamps.size === oldestOffsets.length) shownOldest = oldestRead;
    else {
      // Some head records could not be read: keep the last value rather than report a younger
      // oldest; with none yet, the oldest read is a lower bound of the age, better than nothing.
      shownOldest ??= oldestRead;
      const because = unreadBecause === undefined ? '' : ` (${describeError(unreadBecause).message})`;
      options.onError?.(new KrtError(`could not read the oldest unhandled record of ${consumer.dlqTopic} in every partition${because}; kept the last oldest-record timestamp`));
    }
    if (shownOldest === undefined) metrics.dlqOldestTimestamp.remove(labels);
    else metrics.dlqOldestTimestamp.set(labels, shownOldest / 1000);
    const tierLag: Record<string, number> = {};
    for (const tier of consumer.tiers) {
      tierLag[tier.topic] = await lagOf(tier.topic, consumer.groups.retry);
      metrics.tierLag.set({ consumer: consumer.name, topic: tier.topic }, tierLag[tier.topic]!);
    }
    const unread = [...(await collectTierOverdue(options.port, consumer, metrics, heads, Date.now(), signal)), ...(await collectMainLag(options.port, consumer, metrics, heads, Date.now(), signal))];
    if (unread.length > 0) options.onError?.(new KrtError(`could not read the head record of ${unread.join(', ')}; their overdue and lag seconds grow from the head read before, or keep their last value`));
    return { dlqSize: size, oldestUnhandledAt: shownOldest, dlqExpired: expired, tierLag };
  }

  const intervalMs = options.intervalMs ?? 30_000;
  const deadlineMs = options.pollDeadlineMs ?? Math.max(10 * intervalMs, MIN_POLL_DEADLINE_MS);

  async function pollOrForget(signal?: AbortSignal): Promise<DlqSnapshot> {
    // A Kafka call that neither answers nor fails would keep the last gauges forever: the
    // alerts would read frozen values and KafkaRetryMonitorDown (missing series) stay quiet.
    const polling = pollOnce(signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new KrtError(`a poll of ${consumer.name} has had no answer from Kafka for ${Math.round(deadlineMs / 1000)} s; its gauges are dropped until a poll ends`)), deadlineMs);
      timer.unref?.();
    });
    try {
      return await Promise.race([polling, deadline]);
    } catch (error) {
      // A poll past its deadline may still fail later: that failure is already reported.
      polling.catch(() => undefined);
      await forgetMonitorGauges(metrics, consumer.name);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  function poll(signal?: AbortSignal): Promise<DlqSnapshot> {
    inFlight ??= pollOrForget(signal).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  return {
    metrics,
    poll,
    start() {
      loop ??= startPollLoop([{ poll }], {
        intervalMs,
        onPoll: (_, outcome) => {
          if (!outcome.ok) options.onError?.(outcome.error);
        },
      });
    },
    async stop() {
      const stopping = loop?.stop();
      loop = undefined;
      await stopping;
      await inFlight?.catch(() => undefined);
    },
  };
}
