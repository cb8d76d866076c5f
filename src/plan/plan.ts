import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { consumerChanges } from './consumer-changes';
import { guardChanges } from './guards';
import { consumerPairs, topologyOf } from './pairs';
import { topologyChanges } from './topology-changes';
import type { ChangeGroup, Plan } from './types';

/** Compares the spec's model with the model of the committed output. Pure; offline. */
export function planChanges(before: ProjectModel | undefined, after: ProjectModel): Plan {
  const names = [...new Set([...(before?.topologies ?? []), ...after.topologies].map((t) => t.name))].sort(compareStrings);
  const pairs = consumerPairs(before, after);
  const groups: ChangeGroup[] = names.flatMap((topology) => [
    { topology, changes: topologyChanges(before?.topologies.find((t) => t.name === topology), after.topologies.find((t) => t.name === topology)) },
    ...pairs.filter((p) => topologyOf(p) === topology).map((pair) => ({ topology, consumer: pair.name, changes: consumerChanges(pair) })),
  ]);
  return { hasBaseline: before !== undefined, groups: groups.filter((g) => g.changes.length > 0), refused: guardChanges(before, after) };
}
