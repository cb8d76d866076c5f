import { DashboardBuilder, DashboardCursorSync, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type { Dashboard, Panel, RowPanel } from '@grafana/grafana-foundation-sdk/dashboard';
import type { TopologyModel } from '../../model/types';
import { DASHBOARD_TAGS, dashboardTitle, dashboardUid } from '../../naming';
import { GENERATED_NOTICE } from '../types';
import { firingAlerts } from './annotations';
import { datasourceVariable } from './datasource';
import { runbookPageLink } from './links';
import { consumerPanels } from './panels';
import { environmentVariables } from './variables';

export interface DashboardInput {
  readonly topology: TopologyModel;
  /** Labels that separate environments: each becomes a variable every query filters and keeps. */
  readonly environmentLabels: readonly string[];
}

/**
 * A topology's dashboard: a row per consumer, in spec order, with stable panel ids.
 * Classic dashboard JSON, though the SDK marks its builder deprecated in favour of the
 * v2 schema: the classic form is what Grafana's file provider and import read,
 * while v2 is still experimental in Grafana 12.
 */
export function topologyDashboard(input: DashboardInput): Dashboard {
  return buildDashboard(input);
}

/**
 * Builds the dashboard; with `takePanels`, hands it each consumer's panels as soon as they
 * are laid out and drops them from the dashboard (the builder keeps its place on the grid),
 * so a caller can serialize them a consumer at a time.
 */
export function buildDashboard({ topology, environmentLabels }: DashboardInput, takePanels?: (panels: readonly (Panel | RowPanel)[]) => void): Dashboard {
  const builder = new DashboardBuilder(dashboardTitle(topology.name))
    .uid(dashboardUid(topology.name))
    .description(GENERATED_NOTICE)
    .tags([...DASHBOARD_TAGS])
    // Changes belong in the spec: an edit in Grafana would be lost at the next provisioning.
    .readonly()
    .timezone('browser')
    .time({ from: 'now-6h', to: 'now' })
    .refresh('1m')
    .tooltip(DashboardCursorSync.Crosshair)
    .withVariable(datasourceVariable());
  environmentVariables(topology.consumers.map((c) => c.name), environmentLabels).forEach((variable) => builder.withVariable(variable));

  // Ids in layout order, so a regenerated dashboard keeps them and annotations can name them.
  let lastId = 0;
  for (const consumer of topology.consumers) {
    const scope = { consumer: consumer.name, environmentLabels };
    const runbook = { runbookBaseUrl: topology.runbookBaseUrl, consumer: consumer.name };
    builder.withRow(new RowBuilder(`${consumer.name} (${consumer.mainTopic.name})`).id(++lastId));
    const panelIds = consumerPanels({ consumer, scope, runbook }).map((panel) => {
      panel.id(++lastId);
      builder.withPanel(panel);
      return lastId;
    });
    builder.annotation(firingAlerts(scope, panelIds)).link(runbookPageLink(runbook));
    if (takePanels) takePanels((builder.build().panels ?? []).splice(0));
  }
  return builder.build();
}
