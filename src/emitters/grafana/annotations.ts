import { AnnotationPanelFilterBuilder, AnnotationQueryBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { PROMETHEUS } from './datasource';
import { series } from './promql';
import type { QueryScope } from './promql';

/**
 * A consumer's firing alerts as regions on its own row's panels. The rules are evaluated
 * by Prometheus, not Grafana, so Grafana's alert-state annotations do not see them; the
 * `ALERTS` series Prometheus keeps for every active alert does.
 */
export function firingAlerts(scope: QueryScope, panelIds: readonly number[]): AnnotationQueryBuilder {
  return new AnnotationQueryBuilder()
    .name(`Alerts: ${scope.consumer}`)
    .datasource(PROMETHEUS)
    .enable(true)
    .iconColor('red')
    .expr(series(scope, 'ALERTS', { alertstate: 'firing' }))
    .step('60s')
    .titleFormat('{{alertname}}')
    .textFormat('{{severity}} {{topic}} {{tier}}')
    .tagKeys('alertname,severity')
    .useValueForTime(false)
    .filter(new AnnotationPanelFilterBuilder().ids([...panelIds]));
}
