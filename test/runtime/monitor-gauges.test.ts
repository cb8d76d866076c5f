import { Registry } from 'prom-client';
import { retryMetrics } from '../../src/runtime/metrics';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { forgetMonitorGauges } from '../../src/runtime/monitor-forget';
import { collectMainLag } from '../../src/runtime/monitor-main-lag';
import { collectTierOverdue } from '../../src/runtime/monitor-tier-overdue';
import { createHeadTimes } from '../../src/runtime/monitor-head-times';
import { emptyParkState, encodeParkState, keyHash } from '../../src/runtime/park-state';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';

const NOW = 1_700_000_000_000;

const consumer: ConsumerDescriptor = {
  name: 'billing',
  mainTopic: 'orders',
  groups: { main: 'billing', retry: 'billing.retry', replay: 'billing.dlq-replay', monitor: 'billing.dlq-monitor' },
  tiers: [{ index: 1, topic: 'orders.retry.1m', delayMs: 60_000, label: '1m' }],
  dlqTopic: 'orders.dlq',
  inPlace: { attempts: 1, backoffMs: 10, maxBackoffMs: 10, jitter: 0 },
  errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 0 },
  ordering: 'unordered',
  headerStyle: 'x',
};

interface FakeTopic {
  readonly ends: { partition: number; low: string; high: string }[];
  /** Committed offsets by group. */
  readonly committed: Record<string, { partition: number; offset: string; metadata: string | null }[]>;
  /** Write time (epoch ms) of records by `partition:offset`. */
  readonly written: Record<string, number>;
}

function fakePort(topics: Record<string, FakeTopic>): MonitorPort {
  return {
    endOffsets: async (topic) => topics[topic]!.ends,
    committedOffsets: async (group, topic) => topics[topic]!.committed[group] ?? [],
    timestampsAt: async (topic, offsets) => {
      const found = new Map<number, number>();
      for (const { partition, offset } of offsets) {
        const at = topics[topic]!.written[`${partition}:${offset}`];
        if (at !== undefined) found.set(partition, at);
      }
      return found;
    },
  };
}

async function gauge(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name)!;
  const { values } = await metric.get();
  return Object.fromEntries(values.map((v) => [`${v.labels.partition}`, v.value]));
}

describe('the monitor gauges for tier overdue records and main lag', () => {
  it('reports per partition how overdue the head of a tier is, and 0 for a partition that is on time or empty', async () => {
    const registry = new Registry();
    const port = fakePort({
      'orders.retry.1m': {
        ends: [
          { partition: 0, low: '0', high: '10' },
          { partition: 1, low: '0', high: '5' },
          { partition: 2, low: '0', high: '0' },
        ],
        committed: { 'billing.retry': [{ partition: 0, offset: '7', metadata: null }, { partition: 1, offset: '4', metadata: null }] },
        // Partition 0's head was written 10 minutes ago (due 9 minutes ago); partition 1's 30 s ago (not due).
        written: { '0:7': NOW - 600_000, '1:4': NOW - 30_000 },
      },
    });
    await collectTierOverdue(port, consumer, retryMetrics(registry), createHeadTimes(), NOW);
    expect(await gauge(registry, 'kafka_retry_tier_overdue_seconds')).toEqual({ '0': 540, '1': 0, '2': 0 });
  });

  it('reports main lag in records and in seconds since the next record was written', async () => {
    const registry = new Registry();
    const port = fakePort({
      orders: {
        ends: [
          { partition: 0, low: '0', high: '100' },
          { partition: 1, low: '50', high: '60' },
        ],
        // Partition 1 never committed: the group starts at the low watermark.
        committed: { billing: [{ partition: 0, offset: '100', metadata: null }] },
        written: { '1:50': NOW - 120_000 },
      },
    });
    await collectMainLag(port, consumer, retryMetrics(registry), createHeadTimes(), NOW);
    expect(await gauge(registry, 'kafka_retry_main_lag')).toEqual({ '0': 0, '1': 10 });
    expect(await gauge(registry, 'kafka_retry_main_lag_seconds')).toEqual({ '0': 0, '1': 120 });
  });

  it('does not count records a park-by-key consumer parked in the tiers as main lag', async () => {
    const registry = new Registry();
    const state = emptyParkState(90n);
    const key = keyHash(Buffer.from('order-1'));
    state.held.set(key, 20n);
    state.parked.set(30n, key);
    const port = fakePort({
      orders: {
        ends: [{ partition: 0, low: '0', high: '90' }],
        // Key order-1 waits in a tier and its record 30 is parked: the commit sits at 30, the position at 90.
        committed: { billing: [{ partition: 0, offset: '30', metadata: encodeParkState(state) }] },
        written: {},
      },
    });
    await collectMainLag(port, { ...consumer, ordering: 'park-by-key' }, retryMetrics(registry), createHeadTimes(), NOW);
    expect(await gauge(registry, 'kafka_retry_main_lag')).toEqual({ '0': 0 });
    expect(await gauge(registry, 'kafka_retry_main_lag_seconds')).toEqual({ '0': 0 });
  });

  it('drops only the failed consumer\'s gauges, so Prometheus sees it missing instead of stale', async () => {
    const registry = new Registry();
    const metrics = retryMetrics(registry);
    metrics.dlqSize.set({ consumer: 'billing', topic: 'orders.dlq' }, 3);
    metrics.dlqSize.set({ consumer: 'analytics', topic: 'orders.analytics.dlq' }, 1);
    metrics.tierOverdue.set({ consumer: 'billing', topic: 'orders.retry.1m', partition: '0' }, 5);
    await forgetMonitorGauges(metrics, 'billing');
    const text = await registry.metrics();
    expect(text).not.toContain('consumer="billing"');
    expect(text).toContain('kafka_dlq_size{consumer="analytics",topic="orders.analytics.dlq"} 1');
  });
});
