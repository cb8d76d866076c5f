import { QueryVariableBuilder, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { METRICS } from '../../naming';
import { PROMETHEUS } from './datasource';

/**
 * One variable per environment label, its values read from the runtime's metrics of
 * these consumers; each narrows the next, so `namespace` lists only the chosen cluster's.
 */
export function environmentVariables(consumers: readonly string[], labels: readonly string[]): QueryVariableBuilder[] {
  return labels.map((label, i) => {
    // Consumer names are lower-case words joined by '-': nothing to escape in the regex.
    const matchers = [`consumer=~${JSON.stringify(consumers.join('|'))}`, ...labels.slice(0, i).map((earlier) => `${earlier}="$${earlier}"`)];
    return new QueryVariableBuilder(label)
      .label(label)
      .datasource(PROMETHEUS)
      .query(`label_values(${METRICS.messagesTotal}{${matchers.join(',')}}, ${label})`)
      .refresh(VariableRefresh.OnTimeRangeChanged)
      .sort(VariableSort.AlphabeticalAsc);
  });
}
