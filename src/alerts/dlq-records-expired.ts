import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, environment, minutes, plural } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/** Unhandled DLQ records deleted by retention in an hour that fire the alert. */
export const dlqExpiredRecords = (c: AlertedConsumer<'dlqRecordsExpired'>) => Math.ceil(c.alerts.dlqRecordsExpired.threshold);

/** Retention deleted unhandled DLQ records in the last hour: they are lost. */
function rules(ctx: AlertContext<'dlqRecordsExpired'>): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqRecordsExpired', { topic: consumer.dlq.name });
  const records = dlqExpiredRecords(consumer);
  const expired = selector(METRICS.dlqExpiredTotal, { consumer: consumer.name, topic: consumer.dlq.name });
  // Every monitor's counter is Kafka's expired total (a new one starts at it, not at 0), so
  // the rise of the largest of them counts each deleted record once however many monitors
  // read it, and counts the records deleted while no monitor ran (a restart, a rolling
  // deploy) when one ran before within the hour. A sum of increase() counted every record
  // once per monitor and missed those deleted between two monitors.
  const largest = `max${environment(ctx).by}(${expired})`;
  const forMinutes = minutes(basics.policy.forMs);
  const steady = (perHour: number) => ({ series: expired, values: `0+${perHour / 60}x${90 + forMinutes}` });
  return [
    {
      ...basics,
      expr: `round(${largest} - min_over_time((${largest})[1h:1m])) >= ${records}`,
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

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** Records sat unhandled in \`{{page.dlq.name}}\` until its retention
({{page.dlq.retention}}) deleted them. They are gone from Kafka: nobody replayed or
discarded them, and the events they carried never took effect. The monitor counts them
(\`{{page.metrics.dlqExpiredTotal}}\`) when the DLQ's start offset passes records the replay
group \`{{page.groups.replay}}\` had not handled.

**Likely causes.**
- [KafkaDlqOldestMessageAge](#kafkadlqoldestmessageage) fired and was not followed up.
- The DLQ's retention was shortened, or the replay group was reset or deleted.

**First checks.**
1. How many records retention deleted, per partition (the \`expired:\` line), and what is still there, oldest first: \`{{page.commands.inspect}}\`.
2. Whether the replay group's offsets were reset (records handled before count as unhandled again): its committed offsets and backlog in \`{{page.commands.lag}}\`.

**Fix.** The deleted records cannot be replayed from Kafka. Find the events in the
system that produced them and repair the data there. Then [replay](#replay-from-the-dlq) or
[discard](#discard-a-record) what is left before it expires too.
`;

export const dlqRecordsExpired = defineAlert({
  key: 'dlqRecordsExpired',
  watches: 'dlq',
  thresholdUnit: 'unhandled DLQ records deleted by retention in an hour',
  docs: {
    meaning: 'retention deleted unhandled DLQ records: they are lost',
    query: '`round(max(kafka_dlq_expired_total) - min_over_time(max(kafka_dlq_expired_total)[1h:1m])) >= N`',
  },
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
  runbookTemplate: RUNBOOK,
});
