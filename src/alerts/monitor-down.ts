import { METRICS } from '../naming';
import { ABSENCE_PRESETS, absentRule } from './absent-rule';
import { defineAlert } from './alert-module';
import { describeDuration } from './context';

/** No monitor exports the DLQ and tier gauges: the backlog, age and tier alerts are blind. */
export const monitorDown = defineAlert({
  key: 'monitorDown',
  watches: 'metrics',
  thresholdUnit: "unused (0); `for` is how long the monitor's gauges may be missing",
  presets: ABSENCE_PRESETS,
  rules: (ctx) => {
    const { consumer } = ctx;
    return [
      absentRule(ctx, 'monitorDown', consumer.dlq.name, METRICS.dlqSize, {
        summary: `The DLQ and tier monitor of ${consumer.name} is not running, or Prometheus does not scrape it`,
        description: `Prometheus has no ${METRICS.dlqSize} of ${consumer.name} for ${consumer.dlq.name}: \`krt monitor\` (or the service's in-process monitor) is down, cannot reach Kafka, or is not scraped. The DLQ backlog, oldest-record, expiry, tier and main-lag alerts cannot fire.`,
      }),
    ];
  },
  runbook: (c) => ({
    condition: `Prometheus has had no DLQ and tier gauges of ${c.name} ${describeDuration(c.alerts.monitorDown.forMs)}`,
  }),
});
