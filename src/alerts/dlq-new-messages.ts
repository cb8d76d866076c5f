import { formatDuration } from '../duration';
import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, environment, mentioned, MINUTE, minutes, plural } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/** DLQ records in 10 minutes that fire the alert. */
export const dlqNewRecords = (c: AlertedConsumer<'dlqNewMessages'>) => Math.ceil(c.alerts.dlqNewMessages.threshold);

/** How long the alert stays firing after the last arrival: until KafkaDlqBacklog has taken over. */
const keepFiringForMs = (c: AlertedConsumer<'dlqBacklog'>) => c.alerts.dlqBacklog.forMs + 5 * MINUTE;

/**
 * Records reached the DLQ in the last 10 minutes (R16: for money, one is an incident).
 * Counted twice over, so neither blind spot hides a record: the services' routed counter,
 * and the rise of the monitor's unhandled count, which sees a record that a service routed
 * before its first scrape (a counter born at 1 shows no increase: the bad-deploy case).
 * It keeps firing for as long as KafkaDlqBacklog takes to fire, so one unhandled record
 * is one continuous incident, not a page, a resolve and a second page.
 */
function rules(ctx: AlertContext<'dlqNewMessages' | 'dlqBacklog'>): AlertRule[] {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'dlqNewMessages', { topic: consumer.dlq.name });
  const records = dlqNewRecords(consumer);
  const routed = selector(METRICS.dlqRoutedTotal, { consumer: consumer.name });
  const size = selector(METRICS.dlqSize, { consumer: consumer.name, topic: consumer.dlq.name });
  const forMinutes = minutes(basics.policy.forMs);
  const env = environment(ctx);
  // Records are whole: rounding removes increase()'s extrapolation noise. The rise is the
  // rise of the largest reading of all monitors (one per replica, or one and krt monitor):
  // they poll a few seconds apart, so comparing one monitor's fresh reading with another's
  // old one read every replay that empties the DLQ as new records.
  const largest = `max${env.by}(${size})`;
  const expr =
    `round(sum${env.by}(increase(${routed}[10m]))) >= ${records}` +
    ` or ${env.on} (${largest} - min_over_time((${largest})[10m:1m]) >= ${records})`;
  const steady = (perTenMinutes: number) => ({
    series: selector(METRICS.dlqRoutedTotal, { consumer: consumer.name, error_class: 'permanent' }),
    values: `0+${perTenMinutes / 10}x${40 + forMinutes}`,
  });
  return [
    {
      ...basics,
      expr,
      forMs: basics.policy.forMs,
      keepFiringForMs: keepFiringForMs(consumer),
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

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** {{page.name}} gave up on records and sent them to \`{{page.dlq.name}}\`: either a
permanent error on the first try, or a transient one that outlived every tier{{#if page.tiers.length}} ({{page.ladderSummary}}){{/if}}.
The records are kept, not lost, but they are not processed{{#if page.isMoney}}: for money
events each one is a customer-visible problem (an order not billed){{/if}}.

**Likely causes.**
- A deploy of {{page.name}} that throws on some records (\`TypeError\`, \`ReferenceError\`): the error name says so.
- A producer of \`{{page.mainTopic.name}}\` publishing records the handler cannot parse or validate.
- A downstream outage longer than the whole ladder, so transient errors ran out of tiers.
- An entity that never arrived: ambiguous errors{{#if page.errorPolicy.ambiguousList}} ({{page.errorPolicy.ambiguousList}}){{/if}} end in the DLQ after {{page.errorPolicy.ambiguousTiersText}}.

**First checks.**
1. What arrived and why, grouped by error name and original topic: \`{{page.commands.inspect}}\`.
2. The raw headers of the newest records: \`{{page.commands.kcatDlqTail}}\`.
3. Whether it is still happening, by classification: \`sum by (error_class) (increase({{page.metrics.dlqRoutedTotal}}{consumer="{{page.name}}"}[10m]))\` in Prometheus.
4. Whether it started with a deploy: compare \`{{page.headers.firstFailedAt}}\` with your deploy times.

**Fix.** Act on the error name and its classification: roll back or fix a code error; fix the producer or the
schema for data errors (or declare the error permanent if it is the data's fault for good);
wait for or escalate a downstream outage. Then [replay](#replay-from-the-dlq) the records,
or [discard](#discard-a-record) those that cannot be saved, with a reason.
`;

export const dlqNewMessages = defineAlert({
  key: 'dlqNewMessages',
  watches: 'dlq',
  thresholdUnit: 'DLQ records in 10 minutes',
  docs: {
    meaning: 'records reached the DLQ, counted by the services and, for a record routed before a new pod\'s first scrape, by the monitor\'s rise of unhandled records; it keeps firing (`keep_firing_for`) until `KafkaDlqBacklog` can take over',
    query: '`round(sum(increase(kafka_dlq_routed_total[10m]))) >= N or on() (max(kafka_dlq_size) - min_over_time(max(kafka_dlq_size)[10m:1m]) >= N)`',
  },
  presets: {
    money: { threshold: 1, forMs: 0, severity: 'critical' },
    standard: { threshold: 10, forMs: 0, severity: 'warning' },
    analytics: { threshold: 1000, forMs: 0, severity: 'warning' },
  },
  rules,
  runbook: (c) => {
    const backlog = mentioned(c, 'dlqBacklog');
    return {
      condition: `${dlqNewRecords(c)} or more records reach \`${c.dlq.name}\` within 10 minutes (counted by the services and by the monitor); it stays firing ${formatDuration(keepFiringForMs(c))} longer, so that [${backlog.name}](#${backlog.anchor}) takes over an unhandled record without a gap`,
    };
  },
  runbookTemplate: RUNBOOK,
});
