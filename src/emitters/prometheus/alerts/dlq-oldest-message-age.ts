import { formatDuration } from '../../../duration';
import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import { promDuration, selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, GAP_WINDOW, minutes } from './context';
import type { AlertContext } from './context';

/** The oldest unhandled DLQ record is a share of the way to deletion by retention. */
export function dlqOldestMessageAge(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqOldestMessageAge', { topic: consumer.dlq.name });
  const limitSeconds = alertThresholds.dlqOldestAgeSeconds(consumer);
  const oldest = selector(METRICS.dlqOldestUnhandledTimestampSeconds, { consumer: consumer.name, topic: consumer.dlq.name });
  // The test's oldest record was written `limit` seconds before the test's time 0, so
  // it crosses the threshold at once; a negative timestamp keeps promtool's run short.
  const forMinutes = minutes(basics.policy.forMs);
  const evalSeconds = (10 + forMinutes) * 60;
  const writtenAt = (seconds: number) => [{ series: oldest, values: `${seconds}x${20 + forMinutes}` }];
  const retention = formatDuration(consumer.dlq.retentionMs);
  return [
    {
      ...basics,
      expr: `max${environment(ctx).by}(time() - last_over_time(${oldest}[${GAP_WINDOW}])) > ${limitSeconds}`,
      forMs: basics.policy.forMs,
      summary: `Records in the DLQ of ${consumer.name} are getting close to deletion`,
      description: (value) =>
        `The oldest unhandled record in ${consumer.dlq.name} is ${value} old; the DLQ deletes records after ${retention}, and this alert fires at ${Math.round(basics.policy.threshold * 1000) / 10}% of that. Handle it before it is lost.`,
      valueFormat: 'humanizeDuration',
      firing: {
        name: `a record older than ${promDuration(limitSeconds * 1000)} fires ${basics.alert}`,
        interval: '1m',
        series: writtenAt(-limitSeconds),
        evalTime: `${10 + forMinutes}m`,
        value: limitSeconds + evalSeconds,
      },
      quiet: {
        name: `a record a minute younger than ${promDuration(limitSeconds * 1000)} keeps ${basics.alert} quiet`,
        interval: '1m',
        series: writtenAt(evalSeconds + 60 - limitSeconds),
        evalTime: `${10 + forMinutes}m`,
      },
    },
  ];
}
