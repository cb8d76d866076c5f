import { METRICS } from '../../../naming';
import { runbookPageLink } from '../links';
import { aggregate, series } from '../promql';
import type { PanelContext } from './context';
import { timeseriesPanel } from './panel-kit';
import { recordsOnRightAxis } from './records-axis';

/** How far the main consumer group is behind its topic, in time (left) and in records (right). */
export function mainLag(ctx: PanelContext) {
  const { scope, consumer } = ctx;
  const topic = { topic: consumer.mainTopic.name };
  const panel = timeseriesPanel({
    title: 'Main consumer lag',
    description: `How far the group ${consumer.groups.main} is behind ${consumer.mainTopic.name}: in time (left) and in records not yet processed (right).`,
    unit: 's',
    queries: [
      { expr: aggregate('max', scope, series(scope, METRICS.mainLagSeconds, topic)), legend: 'lag' },
      { expr: aggregate('max', scope, series(scope, METRICS.mainLag, topic)), legend: 'records behind' },
    ],
    links: [runbookPageLink(ctx.runbook)],
  });
  return recordsOnRightAxis(panel, 'B');
}
