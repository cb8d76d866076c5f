import type { RetryTierModel } from '../../../model/types';
import { METRICS } from '../../../naming';
import { ALERTS } from '../../../alerts';
import { alertSectionLink } from '../links';
import { aggregate, quantile, series } from '../promql';
import type { PanelContext } from './context';
import { timeseriesPanel } from './panel-kit';
import { recordsOnRightAxis } from './records-axis';

/** One panel per tier: how long its head record is overdue, against the tier's delay, and how many records wait. */
export function tierLag(ctx: PanelContext, tier: RetryTierModel) {
  const { scope } = ctx;
  const panel = timeseriesPanel({
    title: `Tier ${tier.label}: overdue time and waiting records`,
    description: `How long the most overdue head record of ${tier.name} has been due (left, against the tier's delay of ${tier.label}) and how many records wait in the tier (right). Overdue by more than its delay means the retry consumer is falling behind; see ${ALERTS.retryTierStuck}.`,
    unit: 's',
    queries: [
      { expr: aggregate('max', scope, series(scope, METRICS.retryTierOverdueSeconds, { topic: tier.name })), legend: 'overdue' },
      { expr: aggregate('max', scope, series(scope, METRICS.retryTierLag, { topic: tier.name })), legend: 'waiting records' },
    ],
    thresholds: [{ value: tier.delayMs / 1000, color: 'red' }],
    links: [alertSectionLink(ctx.runbook, 'retryTierStuck')],
  });
  return recordsOnRightAxis(panel, 'B');
}

/** Percentiles of how late tier records start after they were due, per tier. */
export function deliveryLateness(ctx: PanelContext) {
  const { scope } = ctx;
  const percentile = (q: number, name: string) => ({
    expr: quantile(scope, q, METRICS.deliveryLatenessSeconds, ['tier']),
    legend: `{{tier}} ${name}`,
  });
  return timeseriesPanel({
    title: 'Delivery lateness per tier',
    description: `How long after its due time a tier record started processing (the delay is a lower bound, never early), as p50 and p99 per tier. ${ALERTS.retryTierStuck} does not read this panel: it fires when a tier partition's head record is overdue by ${ctx.consumer.alerts.retryTierStuck.threshold} times the tier's delay (the monitor's ${METRICS.retryTierOverdueSeconds} gauge), so a stopped retry consumer, which records no lateness, still fires it.`,
    unit: 's',
    queries: [percentile(0.5, 'p50'), percentile(0.99, 'p99')],
    links: [alertSectionLink(ctx.runbook, 'retryTierStuck')],
  });
}
