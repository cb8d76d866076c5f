import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { ConsumerModel } from '../model/types';
import { defineAlert } from './alert-module';
import { alertBasics, environment, minutes, plural } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/** Unhandled DLQ records deleted by retention in an hour that fire the alert. */
export const dlqExpiredRecords = (c: ConsumerModel) => Math.ceil(c.alerts.dlqRecordsExpired.threshold);

/** Retention deleted unhandled DLQ records in the last hour: they are lost. */
function rules(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqRecordsExpired', { topic: consumer.dlq.name });
  const records = dlqExpiredRecords(consumer);
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

export const dlqRecordsExpired = defineAlert({
  key: 'dlqRecordsExpired',
  watches: 'dlq',
  thresholdUnit: 'unhandled DLQ records deleted by retention in an hour',
  presets: {
    // Each expired record is lost: only analytics tolerates some.
    money: { threshold: 1, forMs: 0, severity: 'critical' },
    standard: { threshold: 1, forMs: 0, severity: 'critical' },
    analytics: { threshold: 1000, forMs: 0, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `${dlqExpiredRecords(c)} or more unhandled records of \`${c.dlq.name}\` are deleted by its ${formatDuration(c.dlq.retentionMs)} retention within an hour`,
  }),
});
