import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import { selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, minutes, plural } from './context';
import type { AlertContext } from './context';

/** Records reached the DLQ in the last 10 minutes (R16: for money, one is an incident). */
export function dlqNewMessages(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqNewMessages', { topic: consumer.dlq.name });
  const records = alertThresholds.dlqNewRecords(consumer);
  const routed = selector(METRICS.dlqRoutedTotal, { consumer: consumer.name });
  const forMinutes = minutes(basics.policy.forMs);
  // Records are whole: rounding removes increase()'s extrapolation noise.
  const expr = `round(sum(increase(${routed}[10m]))) >= ${records}`;
  const steady = (perTenMinutes: number) => ({
    series: selector(METRICS.dlqRoutedTotal, { consumer: consumer.name, error_class: 'permanent' }),
    values: `0+${perTenMinutes / 10}x${40 + forMinutes}`,
  });
  return [
    {
      ...basics,
      expr,
      forMs: basics.policy.forMs,
      summary: `The DLQ of ${consumer.name} is receiving records`,
      description: (value) =>
        `Records that consumer ${consumer.name} gave up on and sent to the DLQ ${consumer.dlq.name} in the last 10 minutes: ${value} (threshold ${records}).`,
      valueFormat: 'humanize',
      firing: {
        name: `${records} DLQ ${plural(records, 'record')} in 10 minutes fire ${basics.alert}`,
        interval: '1m',
        series: [steady(records)],
        evalTime: `${20 + forMinutes}m`,
        value: records,
      },
      quiet: {
        name: `${records - 1} DLQ ${plural(records - 1, 'record')} in 10 minutes, one under the threshold, keep ${basics.alert} quiet`,
        interval: '1m',
        series: [steady(records - 1)],
        evalTime: `${20 + forMinutes}m`,
      },
    },
  ];
}
