import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { ConsumerModel } from '../model/types';
import { defineAlert } from './alert-module';
import { alertBasics, describeDuration, environment, GAP_WINDOW, MINUTE, minutes } from './context';
import type { AlertContext } from './context';
import { promDuration, selector } from './promql';
import type { AlertRule } from './rule';

/** Seconds behind (age of the main group's next record) that fire the alert. */
export const mainLagSeconds = (c: ConsumerModel) => Math.round(c.alerts.mainConsumerLag.threshold);

/**
 * The main group falls behind: its next record on the main topic was written more than
 * the threshold ago (time lag, as kafka-lag-exporter defines it). A stopped consumer
 * shows here too, as a lag that grows with the clock.
 */
function rules(ctx: AlertContext): AlertRule[] {
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

export const mainConsumerLag = defineAlert({
  key: 'mainConsumerLag',
  watches: 'main topic',
  thresholdUnit: "seconds since the main group's next record was written",
  presets: {
    money: { threshold: 300, forMs: 5 * MINUTE, severity: 'critical' },
    standard: { threshold: 900, forMs: 10 * MINUTE, severity: 'warning' },
    analytics: { threshold: 3600, forMs: 15 * MINUTE, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `the next record of \`${c.mainTopic.name}\` that group \`${c.groups.main}\` has to process was written more than ${formatDuration(mainLagSeconds(c) * 1000)} ago, ${describeDuration(c.alerts.mainConsumerLag.forMs)}`,
  }),
});
