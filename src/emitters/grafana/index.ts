import { dashboardFileName } from '../../naming';
import type { Emitter } from '../types';
import { dashboardText } from './dashboard-text';

export { topologyDashboard } from './dashboard';
export type { DashboardInput } from './dashboard';

/** `grafana/<topology>.json`: Grafana dashboard JSON, a row per consumer. */
export const emitGrafana: Emitter = (model) =>
  model.topologies.map((topology) => ({
    path: dashboardFileName(topology.name),
    content: dashboardText({ topology, environmentLabels: topology.environmentLabels }),
  }));
