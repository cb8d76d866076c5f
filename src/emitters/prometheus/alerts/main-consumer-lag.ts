import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import { promDuration, selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, GAP_WINDOW, minutes } from './context';
import type { AlertContext } from './context';

/**
 * The main group falls behind: its next record on the main topic was written more than
 * the threshold ago (time lag, as kafka-lag-exporter defines it). A stopped consumer
 * shows here too, as a lag that grows with the clock.
 */
export function mainConsumerLag(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const main = consumer.mainTopic.name;
  const basics = alertBasics(ctx, 'mainConsumerLag', { topic: main });
  const limitSeconds = alertThresholds.mainLagSeconds(consumer);
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
