import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, environment, GAP_WINDOW, minutes, percent } from './context';
import type { AlertContext } from './context';
import { promDuration, selector } from './promql';
import type { AlertRule } from './rule';

/** Age in seconds of the oldest unhandled DLQ record that fires the alert: a share of the DLQ's retention. */
export const dlqOldestAgeSeconds = (c: AlertedConsumer<'dlqOldestMessageAge'>) => Math.round((c.alerts.dlqOldestMessageAge.threshold * c.dlq.retentionMs) / 1000);

/** The oldest unhandled DLQ record is a share of the way to deletion by retention. */
function rules(ctx: AlertContext<'dlqOldestMessageAge'>): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqOldestMessageAge', { topic: consumer.dlq.name });
  const limitSeconds = dlqOldestAgeSeconds(consumer);
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
        `The oldest unhandled record in ${consumer.dlq.name} is ${value} old; the DLQ deletes records after ${retention}, and this alert fires at ${percent(basics.policy.threshold)} of that. Handle it before it is lost.`,
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

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** \`{{page.dlq.name}}\` deletes records after {{page.dlq.retention}}. The oldest
record nobody has handled will be deleted for good when it reaches that age: this is
the last warning before data loss.

**Likely causes.** A DLQ backlog left alone ([KafkaDlqBacklog](#kafkadlqbacklog)), or a fix that takes longer than planned.

**First checks.**
1. The oldest records and their error names: \`{{page.commands.inspect}}\`.
2. Their raw headers, oldest first: \`{{page.commands.kcatDlq}}\`.

**Fix.** Handle the oldest records now: [replay](#replay-from-the-dlq) them if the cause is
fixed, or [discard](#discard-a-record) them with a reason. If you need more time, raise
\`dlq.retention\` for {{page.name}} in \`{{page.source}}\`, run \`krt synth\` and deploy
(\`cdktf deploy {{page.topology}}\`): Terraform changes \`retention.ms\` in place and deletes nothing.
`;

export const dlqOldestMessageAge = defineAlert({
  key: 'dlqOldestMessageAge',
  watches: 'dlq',
  thresholdUnit: 'share of the DLQ retention',
  docs: {
    meaning: 'the oldest unhandled DLQ record is on its way to deletion by retention',
    query: '`max(time() - last_over_time(kafka_dlq_oldest_unhandled_timestamp_seconds[5m])) > share × retention`',
  },
  presets: {
    money: { threshold: 0.25, forMs: 0, severity: 'critical' },
    standard: { threshold: 0.5, forMs: 0, severity: 'warning' },
    analytics: { threshold: 0.5, forMs: 0, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `the oldest unhandled record in \`${c.dlq.name}\` is older than ${formatDuration(Math.max(1, dlqOldestAgeSeconds(c)) * 1000)} (${percent(c.alerts.dlqOldestMessageAge.threshold)} of its ${formatDuration(c.dlq.retentionMs)} retention)`,
  }),
  runbookTemplate: RUNBOOK,
});
