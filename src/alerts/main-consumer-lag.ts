import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, describeDuration, environment, GAP_WINDOW, MINUTE, minutes } from './context';
import type { AlertContext } from './context';
import { promDuration, selector } from './promql';
import type { AlertRule } from './rule';

/** Seconds behind (age of the main group's next record) that fire the alert. */
export const mainLagSeconds = (c: AlertedConsumer<'mainConsumerLag'>) => Math.round(c.alerts.mainConsumerLag.threshold);

/**
 * The main group falls behind: its next record on the main topic was written more than
 * the threshold ago (time lag, as kafka-lag-exporter defines it). A stopped consumer
 * shows here too, as a lag that grows with the clock.
 */
function rules(ctx: AlertContext<'mainConsumerLag'>): AlertRule[] {
  const { consumer } = ctx;
  const main = consumer.mainTopic.name;
  const basics = alertBasics(ctx, 'mainConsumerLag', { topic: main });
  const limitSeconds = mainLagSeconds(consumer);
  const lag = selector(METRICS.mainLagSeconds, { consumer: consumer.name, topic: main });
  const forMinutes = minutes(basics.policy.forMs);
  const evalMinutes = 10 + forMinutes;
  const constant = (seconds: number) => [{ series: lag, values: `${seconds}x${evalMinutes + 5}` }];
  return [
    {
      ...basics,
      expr: `max${environment(ctx).by}(last_over_time(${lag}[${GAP_WINDOW}])) > ${limitSeconds}`,
      forMs: basics.policy.forMs,
      summary: `The main consumer of ${consumer.name} falls behind on ${main}`,
      description: (value) =>
        `The next record the group ${consumer.groups.main} has to process on ${main} was written ${value} ago (threshold ${promDuration(limitSeconds * 1000)}). The consumer is stopped, stuck or too slow for the traffic.`,
      valueFormat: 'humanizeDuration',
      firing: {
        name: `a main group ${promDuration((limitSeconds + 60) * 1000)} behind fires ${basics.alert}`,
        interval: '1m',
        series: constant(limitSeconds + 60),
        evalTime: `${evalMinutes}m`,
        value: limitSeconds + 60,
      },
      quiet: {
        name: `a main group less than ${promDuration(limitSeconds * 1000)} behind keeps ${basics.alert} quiet`,
        interval: '1m',
        series: constant(limitSeconds - 60),
        evalTime: `${evalMinutes}m`,
      },
    },
  ];
}

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** The main group \`{{page.groups.main}}\` falls behind on \`{{page.mainTopic.name}}\`:
records wait unprocessed. The monitor measures the lag in records (\`{{page.metrics.mainLag}}\`)
and in seconds (\`{{page.metrics.mainLagSeconds}}\`: how long ago the group's next record was
written, per partition). Retries do not count here: a failing record goes to a tier and the
main topic moves on.

**Likely causes.**
- The service is down or crash-looping (then [KafkaRetryConsumerDown](#kafkaretryconsumerdown) fires too, and inhibits this alert).
- A slow handler or downstream, in-place retries that block partitions, or too few instances for the traffic.
- A rebalance storm (members joining and leaving).

**First checks.**
1. Members and lag per partition of the main group \`{{page.groups.main}}\`, as the monitor: \`{{page.commands.lag}}\`.
2. Which partitions are behind: \`{{page.metrics.mainLagSeconds}}{consumer="{{page.name}}"}\` in Prometheus.
3. The service's logs for errors, slow calls or rebalances.

**Fix.** Restart or scale the service (up to the topic's {{page.mainTopic.partitions}} partitions),
fix the slow handler or downstream. Records are not lost while they wait: the main topic keeps them for its retention.
`;

export const mainConsumerLag = defineAlert({
  key: 'mainConsumerLag',
  watches: 'main topic',
  thresholdUnit: "seconds since the main group's next record was written",
  docs: {
    meaning: 'the main group\'s next record was written more than N seconds ago: it is stopped or too slow',
    query: '`max(last_over_time(kafka_retry_main_lag_seconds[5m])) > N`',
  },
  presets: {
    money: { threshold: 300, forMs: 5 * MINUTE, severity: 'critical' },
    standard: { threshold: 900, forMs: 10 * MINUTE, severity: 'warning' },
    analytics: { threshold: 3600, forMs: 15 * MINUTE, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `the next record of \`${c.mainTopic.name}\` that group \`${c.groups.main}\` has to process was written more than ${formatDuration(mainLagSeconds(c) * 1000)} ago, ${describeDuration(c.alerts.mainConsumerLag.forMs)}`,
  }),
  runbookTemplate: RUNBOOK,
});
