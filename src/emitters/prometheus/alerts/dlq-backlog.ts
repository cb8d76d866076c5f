import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import { selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, GAP_WINDOW, minutes, plural } from './context';
import type { AlertContext } from './context';

/** Unhandled DLQ records (the replay group's lag) at or over the threshold. */
export function dlqBacklog(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqBacklog', { topic: consumer.dlq.name });
  const records = alertThresholds.dlqBacklogRecords(consumer);
  const size = selector(METRICS.dlqSize, { consumer: consumer.name, topic: consumer.dlq.name });
  const forMinutes = minutes(basics.policy.forMs);
  const constant = (value: number) => ({ series: size, values: `${value}x${20 + forMinutes}` });
  return [
    {
      ...basics,
      // last_over_time bridges a restarting monitor's gap, so `for:` survives the restart.
      expr: `max${environment(ctx).by}(last_over_time(${size}[${GAP_WINDOW}])) >= ${records}`,
      forMs: basics.policy.forMs,
      summary: `Unhandled records pile up in the DLQ of ${consumer.name}`,
      description: (value) =>
        `Records waiting in the DLQ ${consumer.dlq.name} that nobody has replayed or discarded: ${value} (threshold ${records}).`,
      valueFormat: 'humanize',
      firing: {
        name: `${records} unhandled ${plural(records, 'record')} fire ${basics.alert}`,
        interval: '1m',
        series: [constant(records)],
        evalTime: `${10 + forMinutes}m`,
        value: records,
      },
      quiet: {
        name: `${records - 1} unhandled ${plural(records - 1, 'record')}, one under the threshold, keep ${basics.alert} quiet`,
        interval: '1m',
        series: [constant(records - 1)],
        evalTime: `${10 + forMinutes}m`,
      },
    },
  ];
}
