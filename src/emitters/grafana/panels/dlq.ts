import { formatDuration } from '../../../duration';
import { METRICS } from '../../../naming';
import { ALERTS, dlqBacklogRecords, dlqOldestAgeSeconds } from '../../../alerts';
import { alertSectionLink, inspectDlqLink } from '../links';
import { aggregate, series, TIME_RANGE } from '../promql';
import type { PanelContext } from './context';
import { statPanel, timeseriesPanel } from './panel-kit';

export function dlqSize(ctx: PanelContext) {
  const { scope, consumer } = ctx;
  return timeseriesPanel({
    title: 'DLQ: unhandled records',
    description: `Records in ${consumer.dlq.name} that nobody has replayed or discarded yet (the replay group's lag), against the ${ALERTS.dlqBacklog} threshold.`,
    unit: 'short',
    queries: [{ expr: aggregate('max', scope, series(scope, METRICS.dlqSize, { topic: consumer.dlq.name })), legend: 'unhandled' }],
    thresholds: [{ value: dlqBacklogRecords(consumer), color: 'red' }],
    links: [alertSectionLink(ctx.runbook, 'dlqBacklog'), inspectDlqLink(ctx.runbook)],
  });
}

export function dlqOldestAge(ctx: PanelContext) {
  const { scope, consumer } = ctx;
  const oldest = series(scope, METRICS.dlqOldestUnhandledTimestampSeconds, { topic: consumer.dlq.name });
  return timeseriesPanel({
    title: 'DLQ: age of the oldest unhandled record',
    description: `How old the oldest unhandled record of ${consumer.dlq.name} is. Retention deletes it at ${formatDuration(consumer.dlq.retentionMs)} (red line); ${ALERTS.dlqOldestMessageAge} fires at the orange line. No line: the DLQ has nothing unhandled.`,
    unit: 's',
    queries: [{ expr: aggregate('max', scope, `time() - ${oldest}`), legend: 'oldest unhandled' }],
    thresholds: [
      { value: dlqOldestAgeSeconds(consumer), color: 'orange' },
      { value: consumer.dlq.retentionMs / 1000, color: 'red' },
    ],
    links: [alertSectionLink(ctx.runbook, 'dlqOldestMessageAge'), inspectDlqLink(ctx.runbook)],
  });
}

export function dlqExpired(ctx: PanelContext) {
  const { scope, consumer } = ctx;
  const expired = series(scope, METRICS.dlqExpiredTotal, { topic: consumer.dlq.name });
  return statPanel({
    title: 'DLQ: records expired unhandled',
    description: `Unhandled records of ${consumer.dlq.name} that retention deleted in the selected time range: records lost. Any is an incident.`,
    unit: 'short',
    // As KafkaDlqRecordsExpired reads it: every monitor's counter is Kafka's expired total,
    // so the rise of the largest counts a record once however many monitors export it
    // (a sum of increase() counted it once per monitor).
    queries: [{ expr: `round(${aggregate('max', scope, expired)} - min_over_time((${aggregate('max', scope, expired)})[${TIME_RANGE}:1m]))`, legend: 'expired' }],
    thresholds: [{ value: 1, color: 'red' }],
    links: [inspectDlqLink(ctx.runbook)],
  });
}
