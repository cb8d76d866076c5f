import { METRICS } from '../../../naming';
import { ALERTS, retrySpikeShare, SHARE_WINDOW_MINUTES } from '../../../alerts';
import { alertSectionLink, inspectDlqLink } from '../links';
import { series, sumRate } from '../promql';
import type { PanelContext } from './context';
import { timeseriesPanel } from './panel-kit';

/** The window of the retry-rate rule, so the panel shows the value the alert compares. */
const RETRY_SHARE_WINDOW = `${SHARE_WINDOW_MINUTES}m`;

export function recordsPerSecond({ scope }: PanelContext) {
  const outcome = (value: string) => sumRate(scope, series(scope, METRICS.messagesTotal, { outcome: value }));
  return timeseriesPanel({
    title: 'Records per second',
    description: 'Records the main and retry consumers finished, by outcome: succeeded, sent to a retry tier, or sent to the DLQ.',
    unit: 'reqps',
    queries: [
      { expr: outcome('success'), legend: 'succeeded' },
      { expr: outcome('retry'), legend: 'sent to retry' },
      { expr: outcome('dlq'), legend: 'sent to the DLQ' },
    ],
  });
}

export function retryShare(ctx: PanelContext) {
  const { scope, consumer } = ctx;
  const main = (labels: Record<string, string>) => series(scope, METRICS.messagesTotal, { topic: consumer.mainTopic.name, ...labels });
  return timeseriesPanel({
    title: 'Share of records sent to retry',
    description: `The share of the records of ${consumer.mainTopic.name} sent to retry over ${SHARE_WINDOW_MINUTES} minutes, against the ${ALERTS.retryRateSpike} threshold. A rise means a downstream dependency is failing.`,
    unit: 'percentunit',
    queries: [
      {
        expr: `${sumRate(scope, main({ outcome: 'retry' }), [], RETRY_SHARE_WINDOW)} / ${sumRate(scope, main({}), [], RETRY_SHARE_WINDOW)}`,
        legend: 'sent to retry',
      },
    ],
    thresholds: [{ value: retrySpikeShare(consumer), color: 'red' }],
    links: [alertSectionLink(ctx.runbook, 'retryRateSpike')],
  });
}

export function routedByErrorClass(ctx: PanelContext) {
  const { scope } = ctx;
  return timeseriesPanel({
    title: 'Routed by error class',
    description: 'Records published to each retry tier and to the DLQ per second, by the class their error was given.',
    unit: 'reqps',
    queries: [
      { expr: sumRate(scope, series(scope, METRICS.retryRoutedTotal), ['tier', 'error_class']), legend: 'tier {{tier}}: {{error_class}}' },
      { expr: sumRate(scope, series(scope, METRICS.dlqRoutedTotal), ['error_class']), legend: 'DLQ: {{error_class}}' },
    ],
    links: [alertSectionLink(ctx.runbook, 'dlqNewMessages'), inspectDlqLink(ctx.runbook)],
  });
}

export function publishFailures({ scope }: PanelContext) {
  return timeseriesPanel({
    title: 'Failed publishes to retry and DLQ',
    description: 'Publishes to a retry tier or the DLQ the broker refused, per second. The record stays uncommitted and is tried again; a lasting rate means records pile up unhandled.',
    unit: 'reqps',
    queries: [{ expr: sumRate(scope, series(scope, METRICS.publishFailuresTotal), ['destination', 'reason']), legend: '{{destination}}: {{reason}}' }],
  });
}
