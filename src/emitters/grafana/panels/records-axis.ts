import { GraphThresholdsStyleMode } from '@grafana/grafana-foundation-sdk/common';
import type { PanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

/**
 * Moves the query with the given refId to a right-hand axis counted in records, without
 * threshold lines: a panel whose thresholds are in seconds can show a record count too.
 */
export function recordsOnRightAxis(panel: PanelBuilder, refId: string): PanelBuilder {
  return panel.overrideByQuery(refId, [
    { id: 'unit', value: 'short' },
    { id: 'custom.axisPlacement', value: 'right' },
    { id: 'custom.axisLabel', value: 'records' },
    { id: 'custom.thresholdsStyle', value: { mode: GraphThresholdsStyleMode.Off } },
  ]);
}
