import type { TopologyModel } from '../../model/types';

/**
 * The labels that tell environments apart (e.g. `cluster`, `namespace`), which every
 * alert aggregation keeps. The spec option that names them is being added on another
 * branch; until the model carries it, this single accessor is where it is read, and
 * dashboards get no environment variables.
 */
export function environmentLabels(_topology: TopologyModel): readonly string[] {
  return [];
}
