import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('markers', [60]);

/**
 * A port whose topics end in transaction markers: every record there is, the groups consumed
 * (the DLQ's replay group handled), and past them a transactional producer's commit marker,
 * so each group's next offset holds no record and never will.
 */
function portEndingInMarkers(): MonitorPort {
  return {
    async endOffsets() {
      return [{ partition: 0, low: '0', high: '3' }];
    },
    async committedOffsets() {
      return [{ partition: 0, offset: '2', metadata: null }];
    },
    async timestampsAt(_topic, offsets) {
      // Read to each end, no record from the offset on.
      return new Map(offsets.map((o) => [o.partition, o.end === undefined ? 0 : null]));
    },
  };
}

describe('a monitor over topics whose last offsets are transaction markers', () => {
  it('reports no oldest DLQ record, the main group caught up and no tier overdue, with no error', async () => {
    const errors: unknown[] = [];
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port: portEndingInMarkers(), registry, onError: (e) => errors.push(e) });
    const snapshot = await monitor.poll();
    expect(snapshot.oldestUnhandledAt).toBeUndefined();
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string) => metrics.find((m) => m.name === name)?.values.map((v) => v.value);
    expect({ lagSeconds: value('kafka_retry_main_lag_seconds'), overdue: value('kafka_retry_tier_overdue_seconds'), errors: errors.map(String) }).toEqual({ lagSeconds: [0], overdue: [0], errors: [] });
  });
});
