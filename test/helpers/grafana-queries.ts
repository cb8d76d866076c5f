import type { Dashboard, Panel, RowPanel } from '@grafana/grafana-foundation-sdk/dashboard';

/** A PromQL query of a generated dashboard, with where it comes from. */
export interface DashboardQuery {
  /** `<panel title> / <refId>`, or `annotation <name>`. */
  readonly source: string;
  readonly expr: string;
}

/**
 * Values for Grafana's built-in variables, as Grafana would substitute them: the rate
 * window and the time range the viewer picked.
 */
export const GRAFANA_BUILTINS: Readonly<Record<string, string>> = { __rate_interval: '1m', __range: '1h' };

/**
 * Replaces `$name` and `${name}` with the given values (Grafana's built-ins included);
 * a variable without a value is an error, so no query reaches Prometheus half-resolved.
 */
export function resolveVariables(expr: string, values: Readonly<Record<string, string>>): string {
  const all = { ...GRAFANA_BUILTINS, ...values };
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const value = all[name];
    if (value === undefined) throw new Error(`the query ${expr} uses $${name}, which has no value; pass one for it`);
    return value;
  });
}

function isRow(panel: Panel | RowPanel): panel is RowPanel {
  return panel.type === 'row';
}

/**
 * Every panel query of a dashboard with its variables resolved: what Grafana would send
 * to Prometheus. `environment` gives a value to each environment variable (`cluster`, …).
 * For the end-to-end test: each of these must return series from a real Prometheus.
 */
export function panelQueries(dashboard: Dashboard, environment: Readonly<Record<string, string>> = {}): DashboardQuery[] {
  return (dashboard.panels ?? [])
    .filter((panel): panel is Panel => !isRow(panel))
    .flatMap((panel) =>
      (panel.targets ?? []).map((target) => {
        const { refId, expr } = target as unknown as { refId: string; expr: string };
        return { source: `${panel.title} / ${refId}`, expr: resolveVariables(expr, environment) };
      }),
    );
}

/** The alert annotations' queries, resolved the same way (they return series only while an alert fires). */
export function annotationQueries(dashboard: Dashboard, environment: Readonly<Record<string, string>> = {}): DashboardQuery[] {
  return (dashboard.annotations.list ?? []).map((a) => ({ source: `annotation ${a.name}`, expr: resolveVariables(a.expr ?? '', environment) }));
}

/**
 * The series selectors the environment variables read their values from (the first
 * argument of Grafana's `label_values(selector, label)`), resolved the same way.
 */
export function variableSelectors(dashboard: Dashboard, environment: Readonly<Record<string, string>> = {}): DashboardQuery[] {
  return (dashboard.templating.list ?? [])
    .filter((v) => v.type === 'query')
    .map((v) => {
      const match = /^label_values\((.*), (\w+)\)$/.exec(String(v.query));
      if (!match) throw new Error(`variable ${v.name} does not read label_values(selector, label): ${String(v.query)}`);
      return { source: `variable ${v.name}`, expr: resolveVariables(match[1]!, environment) };
    });
}
