import { DatasourceVariableBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type { DataSourceRef } from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE_VARIABLE } from '../../naming';

/** Every query and annotation reads the Prometheus the viewer picks in the datasource variable. */
export const PROMETHEUS: DataSourceRef = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };

export function datasourceVariable(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder(DATASOURCE_VARIABLE).label('Prometheus').type('prometheus');
}
