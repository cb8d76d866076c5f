import { selector } from '../../alerts/promql';

/** What every query of a consumer's row filters on and keeps. */
export interface QueryScope {
  readonly consumer: string;
  /** Each label is matched against the Grafana variable of the same name and kept by aggregations. */
  readonly environmentLabels: readonly string[];
}

/** Grafana's rate window: at least four scrape intervals, whatever the zoom. */
export const RATE_INTERVAL = '$__rate_interval';
/** Grafana's whole selected time range, for totals over what is on screen. */
export const TIME_RANGE = '$__range';

/** `metric{consumer="…",…,cluster="$cluster"}`: the consumer, the given labels, the chosen environment. */
export function series(scope: QueryScope, metric: string, labels: Readonly<Record<string, string>> = {}): string {
  const environment = Object.fromEntries(scope.environmentLabels.map((label) => [label, `$${label}`]));
  return selector(metric, { consumer: scope.consumer, ...labels, ...environment });
}

/** `op by (environment…, labels…) (expr)`, or `op(expr)` when there is nothing to keep. */
export function aggregate(op: 'sum' | 'max', scope: QueryScope, expr: string, labels: readonly string[] = []): string {
  const kept = [...scope.environmentLabels, ...labels];
  return kept.length === 0 ? `${op}(${expr})` : `${op} by (${kept.join(', ')}) (${expr})`;
}

/** Per-second rate of a counter, summed over what the labels do not keep. */
export function sumRate(scope: QueryScope, selectorText: string, labels: readonly string[] = [], window = RATE_INTERVAL): string {
  return aggregate('sum', scope, `rate(${selectorText}[${window}])`, labels);
}

/** A quantile of a histogram, per the given labels. */
export function quantile(scope: QueryScope, q: number, histogram: string, labels: readonly string[]): string {
  const buckets = series(scope, `${histogram}_bucket`);
  return `histogram_quantile(${q}, ${aggregate('sum', scope, `rate(${buckets}[${RATE_INTERVAL}])`, [...labels, 'le'])})`;
}
