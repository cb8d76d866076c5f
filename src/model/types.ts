import type { AlertKey } from '../alerts';
import type { AlertPolicy, ConsumerParts, KeptStack, TopologyParts } from './parts';

export type * from './parts';

/**
 * The normalized model every emitter reads: defaults applied, durations in
 * milliseconds, every name computed by the naming module. Frozen after it is built.
 */
export interface ProjectModel {
  readonly topologies: readonly TopologyModel[];
  /**
   * The stacks of deleted topology files, still generated with no resources so that
   * applying them deletes what their state holds (see plan/removed-stacks.ts). Carried by
   * the project, not by a topology: the last topology of a project can be deleted too.
   * Absent when there are none.
   */
  readonly keptStacks?: readonly KeptStack[];
}

export interface TopologyModel extends TopologyParts {
  readonly consumers: readonly ConsumerModel[];
}

export interface ConsumerModel extends ConsumerParts {
  /** Every alert's threshold, \`for\` and severity: its criticality's presets with the spec's overrides. */
  readonly alerts: Readonly<Record<AlertKey, AlertPolicy>>;
}
