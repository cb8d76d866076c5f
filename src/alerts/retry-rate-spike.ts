import { METRICS } from '../naming';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, describeDuration, environment, MINUTE, minutes, percent } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/**
 * Minimum records over the longer volume window, so one failure of a quiet topic is not
 * a spike; counted over 30 minutes, so a flow of about one record a minute stays clearly
 * above it instead of wavering around it and resetting `for:`.
 */
const MIN_RECORDS = 10;
/** The window the share is taken over; dashboards draw the share over the same window. */
export const SHARE_WINDOW_MINUTES = 10;
const VOLUME_WINDOW_MINUTES = 30;
const RECORDS_PER_MINUTE = 20;

/** Share of main-topic records sent to retry that fires the alert. */
export const retrySpikeShare = (c: AlertedConsumer<'retryRateSpike'>) => c.alerts.retryRateSpike.threshold;

/** The share of main-topic records sent to retry is over the threshold. */
function rules(ctx: AlertContext<'retryRateSpike'>): AlertRule[] {
  const { consumer } = ctx;
  const main = consumer.mainTopic.name;
  const basics = alertBasics(ctx, 'retryRateSpike', { topic: main });
  const share = retrySpikeShare(consumer);
  const total = (extra: Record<string, string> = {}) => selector(METRICS.messagesTotal, { consumer: consumer.name, topic: main, ...extra });
  const forMinutes = minutes(basics.policy.forMs);
  const env = environment(ctx);
  const traffic = (sentToRetry: number) => {
    const retried = RECORDS_PER_MINUTE * sentToRetry;
    return [
      { series: total({ outcome: 'success' }), values: `0+${RECORDS_PER_MINUTE - retried}x${40 + forMinutes}` },
      { series: total({ outcome: 'retry' }), values: `0+${retried}x${40 + forMinutes}` },
    ];
  };
  const firingShare = Math.min(share * 2, 0.9);
  return [
    {
      ...basics,
      expr:
        `sum${env.by}(rate(${total({ outcome: 'retry' })}[${SHARE_WINDOW_MINUTES}m])) / sum${env.by}(rate(${total()}[${SHARE_WINDOW_MINUTES}m])) > ${share}` +
        ` and ${env.on} sum${env.by}(increase(${total()}[${VOLUME_WINDOW_MINUTES}m])) >= ${MIN_RECORDS}`,
      forMs: basics.policy.forMs,
      summary: `Many records of ${consumer.name} fail and go to retry`,
      description: (value) =>
        `${value} of the records of ${main} were sent to retry in the last ${SHARE_WINDOW_MINUTES} minutes (threshold ${percent(share)}). A downstream dependency is probably failing.`,
      valueFormat: 'humanizePercentage',
      firing: {
        name: `${percent(firingShare)} of records sent to retry fire ${basics.alert}`,
        interval: '1m',
        series: traffic(firingShare),
        evalTime: `${25 + forMinutes}m`,
        value: firingShare,
      },
      quiet: {
        name: `${percent(share / 2)} of records sent to retry keep ${basics.alert} quiet`,
        interval: '1m',
        series: traffic(share / 2),
        evalTime: `${25 + forMinutes}m`,
      },
    },
  ];
}

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** Many records of \`{{page.mainTopic.name}}\` fail with transient errors at once:
usually a downstream dependency is failing. Non-blocking retry absorbs it (the main
partitions keep flowing), but if it lasts longer than the ladder{{#if page.tiers.length}} ({{page.ladderSummary}}){{/if}},
records start reaching the DLQ.

**Likely causes.**
- A downstream outage or throttling (5xx, 429, timeouts).
- A deploy that made a permanent error look transient, so records are retried in vain.

**First checks.**
1. Which classifications: \`sum by (error_class) (rate({{page.metrics.retryRoutedTotal}}{consumer="{{page.name}}"}[5m]))\` in Prometheus.
2. The status of the downstream services {{page.name}} calls.
3. A sample of failing records, with their error names: \`{{page.commands.kcatDlqTail}}\` for the DLQ{{#if page.tiers.length}}, or the head of a tier as in [KafkaRetryTierStuck](#kafkaretrytierstuck){{/if}}.

**Fix.** Restore the downstream; nothing else is needed while the tiers absorb the
failures. If an error is retried that never succeeds (a 400, a validation error), declare
it in \`errors.permanent\` in \`{{page.source}}\` and deploy, so it goes to the DLQ at once.
`;

export const retryRateSpike = defineAlert({
  key: 'retryRateSpike',
  watches: 'main topic',
  thresholdUnit: 'share of records sent to retry',
  docs: {
    meaning: 'the share of main-topic records sent to retry (a downstream outage), with at least 10 records in 30 minutes',
    query: '`sum(rate(kafka_retry_messages_total{outcome="retry"}[10m])) / sum(rate(kafka_retry_messages_total[10m])) > share and on() sum(increase(kafka_retry_messages_total[30m])) >= 10`',
  },
  presets: {
    money: { threshold: 0.05, forMs: 10 * MINUTE, severity: 'critical' },
    standard: { threshold: 0.1, forMs: 10 * MINUTE, severity: 'warning' },
    analytics: { threshold: 0.25, forMs: 15 * MINUTE, severity: 'warning' },
  },
  rules,
  runbook: (c) => ({
    condition: `more than ${percent(retrySpikeShare(c))} of the records of \`${c.mainTopic.name}\` go to retry over ${SHARE_WINDOW_MINUTES} minutes (with at least ${MIN_RECORDS} records in ${VOLUME_WINDOW_MINUTES} minutes), ${describeDuration(c.alerts.retryRateSpike.forMs)}`,
  }),
  runbookTemplate: RUNBOOK,
});
