import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { createHeadTimes } from '../../src/runtime/monitor-head-times';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

describe('the head write times the monitor remembers', () => {
  it('gives a head not read now the write time read before, while the head is the same offset', () => {
    const heads = createHeadTimes();
    heads.complete('t', [{ partition: 0, lag: 3, head: '7' }], new Map([[0, 1_000]]));
    expect(heads.complete('t', [{ partition: 0, lag: 4, head: '7' }], new Map())).toEqual(new Map([[0, 1_000]]));
  });

  it('does not give a head that moved the write time of the record before it', () => {
    const heads = createHeadTimes();
    heads.complete('t', [{ partition: 0, lag: 3, head: '7' }], new Map([[0, 1_000]]));
    expect(heads.complete('t', [{ partition: 0, lag: 3, head: '8' }], new Map())).toEqual(new Map());
  });

  it('forgets a partition once it has no lag, and keeps topics apart', () => {
    const heads = createHeadTimes();
    heads.complete('t', [{ partition: 0, lag: 3, head: '7' }], new Map([[0, 1_000]]));
    heads.complete('t', [{ partition: 0, lag: 0 }], new Map());
    expect(heads.complete('t', [{ partition: 0, lag: 1, head: '7' }], new Map())).toEqual(new Map());
    heads.complete('t', [{ partition: 0, lag: 3, head: '7' }], new Map([[0, 1_000]]));
    expect(heads.complete('u', [{ partition: 0, lag: 3, head: '7' }], new Map())).toEqual(new Map());
  });
});

/*
 * Found after attack 32's fix (which kept the last value of a head not read): a tier whose head
 * was not due yet at the last read reported 0 for as long as the reads failed, though the
 * retry group never moved and the record grew hours overdue; RetryTierStuck stayed silent.
 */
describe('the DLQ monitor while a stuck partition\'s head cannot be read', () => {
  const consumer = testDescriptor('head-times', [60]);
  const tier = consumer.tiers[0]!;
  const start = Date.now();
  let now = start;
  beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
  afterEach(() => jest.restoreAllMocks());

  function port(readable: () => boolean): MonitorPort {
    return {
      endOffsets: async (topic) => (topic === consumer.dlqTopic ? [{ partition: 0, low: '0', high: '0' }] : [{ partition: 0, low: '0', high: '5' }]),
      committedOffsets: async () => [{ partition: 0, offset: '0', metadata: null }],
      // Written 30 s before the first poll: not due yet on the tier of 60 s.
      timestampsAt: async (_topic, offsets) => (readable() ? new Map(offsets.map((o) => [o.partition, start - 30_000])) : new Map()),
    };
  }

  async function gauge(registry: Registry, name: string, topic: string): Promise<number | undefined> {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    return (metric?.values ?? []).find((v) => v.labels.topic === topic && v.labels.partition === '0')?.value;
  }

  it('reports the tier overdue and the main lag growing from the head read before', async () => {
    const registry = new Registry();
    let readable = true;
    const errors: unknown[] = [];
    const monitor = createDlqMonitor(consumer, { port: port(() => readable), registry, onError: (e) => errors.push(e) });
    await monitor.poll();
    expect(await gauge(registry, 'kafka_retry_tier_overdue_seconds', tier.topic)).toBe(0);

    readable = false;
    now = start + 2 * 3_600_000;
    await monitor.poll();
    expect(await gauge(registry, 'kafka_retry_tier_overdue_seconds', tier.topic)).toBe(2 * 3_600 + 30 - 60);
    expect(await gauge(registry, 'kafka_retry_main_lag_seconds', consumer.mainTopic)).toBe(2 * 3_600 + 30);
    // The on-call engineer still hears that the reads fail.
    expect(errors.map(String).join('\n')).toContain(`could not read the head record of ${tier.topic}/0`);
  });
});
