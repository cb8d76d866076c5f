/** Grafana's limit on a dashboard uid. */
const MAX_DASHBOARD_UID_LENGTH = 40;

export function dashboardFileName(topology: string): string {
  return `grafana/${topology}.json`;
}

export function dashboardTitle(topology: string): string {
  return `Kafka retry: ${topology}`;
}

/** Stable across runs and Grafana instances, so provisioning updates the same dashboard. */
export function dashboardUid(topology: string): string {
  return `krt-${topology}`.slice(0, MAX_DASHBOARD_UID_LENGTH);
}

/** Tags on every generated dashboard: the product, and the marker that it is generated. */
export const DASHBOARD_TAGS = ['kafka-retry-topology', 'generated-by-krt'] as const;

/** The Grafana template variable that picks the Prometheus data source. */
export const DATASOURCE_VARIABLE = 'datasource';
