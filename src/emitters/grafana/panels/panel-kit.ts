import { BigValueGraphMode, GraphThresholdsStyleConfigBuilder, GraphThresholdsStyleMode, LegendDisplayMode, LegendPlacement, ReduceDataOptionsBuilder, VizLegendOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { ThresholdsConfigBuilder, ThresholdsMode } from '@grafana/grafana-foundation-sdk/dashboard';
import type { DashboardLinkBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanelBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TimeseriesPanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';
import { PROMETHEUS } from '../datasource';

/** One PromQL query of a panel and how its series are named in the legend. */
export interface PanelQuery {
  readonly expr: string;
  readonly legend: string;
}

/** A line the data is judged against, e.g. an alert's threshold or a tier's delay. */
export interface Threshold {
  readonly value: number;
  readonly color: 'orange' | 'red';
}

export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  /** Grafana unit id: `s`, `short`, `reqps`, `percentunit`. */
  readonly unit: string;
  readonly queries: readonly PanelQuery[];
  readonly thresholds?: readonly Threshold[];
  readonly links?: readonly DashboardLinkBuilder[];
}

/** Panels that sit in a row: timeseries for trends, stat for a single total. */
export type RowPanelBuilder = TimeseriesPanelBuilder | StatPanelBuilder;

/** Three panels per line of the row. */
const PANEL_WIDTH = 8;
const PANEL_HEIGHT = 8;

function targets(queries: readonly PanelQuery[]): DataqueryBuilder[] {
  // refIds A, B, …: overrides of a panel refer to its queries by them.
  return queries.map((q, i) => new DataqueryBuilder().refId(String.fromCharCode(65 + i)).expr(q.expr).legendFormat(q.legend).datasource(PROMETHEUS));
}

function thresholdSteps(thresholds: readonly Threshold[]): ThresholdsConfigBuilder {
  const steps = [{ value: null, color: 'green' }, ...thresholds.map((t) => ({ value: t.value, color: t.color }))];
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps);
}

/** A time series panel; thresholds, when given, are drawn as dashed lines. */
export function timeseriesPanel(spec: PanelSpec): TimeseriesPanelBuilder {
  const panel = new TimeseriesPanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(PROMETHEUS)
    .targets(targets(spec.queries))
    .unit(spec.unit)
    .min(0)
    .span(PANEL_WIDTH)
    .height(PANEL_HEIGHT)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom))
    .links([...(spec.links ?? [])]);
  if (spec.thresholds?.length) {
    panel.thresholds(thresholdSteps(spec.thresholds)).thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
  }
  return panel;
}

/** A single number over the selected time range, coloured by its thresholds. */
export function statPanel(spec: PanelSpec): StatPanelBuilder {
  return new StatPanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(PROMETHEUS)
    // One value at the end of the range is all a stat shows: no need for a range query.
    .targets(targets(spec.queries).map((query) => query.instant()))
    .unit(spec.unit)
    .span(PANEL_WIDTH)
    .height(PANEL_HEIGHT)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
    .graphMode(BigValueGraphMode.None)
    .thresholds(thresholdSteps(spec.thresholds ?? []))
    .links([...(spec.links ?? [])]);
}
