import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import { selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, minutes, plural } from './context';
import type { AlertContext } from './context';

/** Retention deleted unhandled DLQ records in the last hour: they are lost. */
export function dlqRecordsExpired(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqRecordsExpired', { topic: consumer.dlq.name });
  const records = alertThresholds.dlqExpiredRecords(consumer);
  const expired = selector(METRICS.dlqExpiredTotal, { consumer: consumer.name, topic: consumer.dlq.name });
  const forMinutes = minutes(basics.policy.forMs);
  const steady = (perHour: number) => ({ series: expired, values: `0+${perHour / 60}x${90 + forMinutes}` });
  return [
    {
      ...basics,
      expr: `round(sum${environment(ctx).by}(increase(${expired}[1h]))) >= ${records}`,
      forMs: basics.policy.forMs,
      summary: `Retention deleted unhandled records from the DLQ of ${consumer.name}`,
      description: (value) =>
        `Records that nobody replayed or discarded were deleted by the retention of ${consumer.dlq.name} in the last hour: ${value} (threshold ${records}). They are lost; find them in the service's logs or the source system.`,
      valueFormat: 'humanize',
      firing: {
        name: `${records} expired ${plural(records, 'record')} in an hour fire ${basics.alert}`,
        interval: '1m',
        series: [steady(records)],
        evalTime: `${70 + forMinutes}m`,
        value: records,
      },
      quiet: {
        name: `${records - 1} expired ${plural(records - 1, 'record')} in an hour keep ${basics.alert} quiet`,
        interval: '1m',
        series: [steady(records - 1)],
        evalTime: `${70 + forMinutes}m`,
      },
    },
  ];
}
