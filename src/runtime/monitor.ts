import type { Registry } from 'prom-client';
import type { ConsumerDescriptor } from './descriptor';
import { decodeHandled, unhandledBefore } from './dlq-handled';
import { retryMetrics } from './metrics';
import { collectMainLag } from './monitor-main-lag';
import { collectTierOverdue } from './monitor-tier-overdue';
import type { RetryMetrics } from './metrics';

/** What the monitor reads from Kafka: offsets through the admin API, one record per DLQ partition. */
export interface MonitorPort {
  endOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: string; metadata: string | null }[]>;
  /** The timestamps (epoch ms) of the records at these offsets; a partition without one is left out. */
  timestampsAt(topic: string, offsets: { partition: number; offset: string }[]): Promise<Map<number, number>>;
}

export interface DlqMonitorOptions {
  readonly port: MonitorPort;
  readonly registry?: Registry;
  /** How often to poll; default 30 s. */
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

export interface DlqSnapshot {
  readonly dlqSize: number;
  /** Epoch ms of the oldest unhandled DLQ record, absent when there is none. */
  readonly oldestUnhandledAt?: number;
  readonly tierLag: Readonly<Record<string, number>>;
}

export interface DlqMonitor {
  readonly metrics: RetryMetrics;
  /** Reads Kafka once and sets the gauges. */
  poll(): Promise<DlqSnapshot>;
  start(): void;
  stop(): void;
}

/**
 * The DLQ and tier monitor behind the gauges the alerts query: kafka_dlq_size (DLQ end
 * offsets minus what the replay group handled), the timestamp of the oldest unhandled
 * DLQ record, and kafka_retry_tier_lag (tier end offsets minus the retry group's).
 */
export function createDlqMonitor(consumer: ConsumerDescriptor, options: DlqMonitorOptions): DlqMonitor {
  const metrics = retryMetrics(options.registry);
  const labels = { consumer: consumer.name, topic: consumer.dlqTopic };
  let timer: ReturnType<typeof setInterval> | undefined;

  async function lagOf(topic: string, groupId: string): Promise<number> {
    const [ends, committed] = await Promise.all([options.port.endOffsets(topic), options.port.committedOffsets(groupId, topic)]);
    const byPartition = new Map(committed.map((c) => [c.partition, BigInt(c.offset)]));
    return ends.reduce((sum, e) => {
      const done = byPartition.get(e.partition) ?? -1n;
      const from = done < 0n ? BigInt(e.low) : done;
      return sum + Number(BigInt(e.high) > from ? BigInt(e.high) - from : 0n);
    }, 0);
  }

  async function poll(): Promise<DlqSnapshot> {
    const [ends, committed] = await Promise.all([
      options.port.endOffsets(consumer.dlqTopic),
      options.port.committedOffsets(consumer.groups.replay, consumer.dlqTopic),
    ]);
    const commits = new Map(committed.map((c) => [c.partition, c]));
    let size = 0;
    const oldestOffsets: { partition: number; offset: string }[] = [];
    for (const e of ends) {
      const c = commits.get(e.partition);
      const start = c && BigInt(c.offset) >= 0n ? BigInt(c.offset) : BigInt(e.low);
      const { count, first } = unhandledBefore(decodeHandled(start, c?.metadata), BigInt(e.high));
      size += count;
      if (first !== undefined) oldestOffsets.push({ partition: e.partition, offset: first.toString() });
    }
    const timestamps = oldestOffsets.length > 0 ? await options.port.timestampsAt(consumer.dlqTopic, oldestOffsets) : new Map<number, number>();
    const oldest = timestamps.size > 0 ? Math.min(...timestamps.values()) : undefined;
    metrics.dlqSize.set(labels, size);
    if (oldest === undefined) metrics.dlqOldestTimestamp.remove(labels);
    else metrics.dlqOldestTimestamp.set(labels, oldest / 1000);
    const tierLag: Record<string, number> = {};
    for (const tier of consumer.tiers) {
      tierLag[tier.topic] = await lagOf(tier.topic, consumer.groups.retry);
      metrics.tierLag.set({ consumer: consumer.name, topic: tier.topic }, tierLag[tier.topic]!);
    }
    await collectTierOverdue(options.port, consumer, metrics, Date.now());
    await collectMainLag(options.port, consumer, metrics, Date.now());
    return { dlqSize: size, oldestUnhandledAt: oldest, tierLag };
  }

  return {
    metrics,
    poll,
    start() {
      timer ??= setInterval(() => void poll().catch((error: unknown) => options.onError?.(error)), options.intervalMs ?? 30_000);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
