import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, describeDuration, environment, GAP_WINDOW, MINUTE, minutes, plural } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/** Unhandled DLQ records that fire the alert. */
export const dlqBacklogRecords = (c: AlertedConsumer<'dlqBacklog'>) => Math.ceil(c.alerts.dlqBacklog.threshold);

/** Unhandled DLQ records (the replay group's lag) at or over the threshold. */
function rules(ctx: AlertContext<'dlqBacklog'>): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqBacklog', { topic: consumer.dlq.name });
  const records = dlqBacklogRecords(consumer);
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

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** Records sit in \`{{page.dlq.name}}\` that nobody has replayed or discarded.
The backlog is the lag of the replay group \`{{page.groups.replay}}\`: \`krt dlq replay\` and
\`krt dlq discard\` are the only ways to bring it down. A DLQ is not a bin: every record
in it is an event that has not taken effect.

**Likely causes.**
- An earlier [KafkaDlqNewMessages](#kafkadlqnewmessages) that was acknowledged but not followed up.
- Records that are waiting for a fix that has not shipped yet.

**First checks.**
1. \`{{page.commands.inspect}}\`: how many, which error names, since when.
2. The backlog per partition (the replay group's lag), as the monitor: \`{{page.commands.lag}}\`.

**Fix.** Triage by error name: for each, fix the cause and [replay](#replay-from-the-dlq),
or [discard](#discard-a-record) with a reason. Do not leave records to age out:
see [KafkaDlqOldestMessageAge](#kafkadlqoldestmessageage).
`;

export const dlqBacklog = defineAlert({
  key: 'dlqBacklog',
  watches: 'dlq',
  thresholdUnit: 'unhandled DLQ records',
  docs: {
    meaning: 'DLQ records nobody has replayed or discarded (the replay group\'s lag)',
    query: '`max(last_over_time(kafka_dlq_size[5m])) >= N`',
    explainsBecause: 'the same unhandled records, already paging',
  },
  // The backlog is the same unhandled records, still paging.
  explains: ['dlqNewMessages'],
  presets: {
    money: { threshold: 1, forMs: 30 * MINUTE, severity: 'critical' },
    standard: { threshold: 100, forMs: 30 * MINUTE, severity: 'warning' },
    analytics: { threshold: 1000, forMs: 60 * MINUTE, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `${dlqBacklogRecords(c)} or more records wait unhandled in \`${c.dlq.name}\`, ${describeDuration(c.alerts.dlqBacklog.forMs)}`,
  }),
  runbookTemplate: RUNBOOK,
});
