import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { consumerChanges } from './consumer-changes';
import { guardChanges } from './guards';
import { judgeOutcome } from './outcome';
import { topicOwners } from './topic-owner';
import { consumerPairs, topologyOf } from './pairs';
import { removedStackChanges } from './removed-stacks';
import { topologyChanges } from './topology-changes';
import type { ChangeGroup, Plan, PlannedChange } from './types';
import type { StackResources } from './stack-resources';

/**
 * Compares the spec's model with the model of the committed output, and the Terraform it
 * generates with the committed stacks when given (what was applied). Pure; offline.
 */
export function planChanges(before: ProjectModel | undefined, after: ProjectModel, committed?: ReadonlyMap<string, StackResources>, applied?: ReadonlySet<string>): Plan {
  const outcome = before ? judgeOutcome(before, after, committed, applied) : undefined;
  const names = [...new Set([...(before?.topologies ?? []), ...after.topologies].map((t) => t.name))];
  const groups = new Map<string, { topology: string; consumer?: string; changes: PlannedChange[] }>();
  const add = (topology: string, consumer: string | undefined, changes: readonly PlannedChange[]) => {
    const key = `${topology}\0${consumer ?? ''}`;
    const group = groups.get(key) ?? { topology, ...(consumer !== undefined ? { consumer } : {}), changes: [] };
    group.changes.push(...changes);
    groups.set(key, group);
  };
  for (const topology of names) {
    const now = after.topologies.find((t) => t.name === topology);
    const heir = now ?? after.topologies.find((t) => t.previousName === topology);
    add(topology, undefined, topologyChanges(before?.topologies.find((t) => t.name === topology), now, heir));
  }
  const existing = new Set(before ? topicOwners(before).keys() : []);
  for (const pair of consumerPairs(before, after)) add(topologyOf(pair), pair.name, consumerChanges(pair, existing));
  for (const c of outcome?.changes ?? []) add(c.topology, c.consumer, [c.change]);
  for (const c of removedStackChanges(before, after)) add(c.topology, undefined, [c.change]);
  // Each topology's own changes first, then its consumers by name.
  const ordered: ChangeGroup[] = [...groups.values()]
    .filter((g) => g.changes.length > 0)
    .sort((a, b) => compareStrings(a.topology, b.topology) || (a.consumer === undefined ? -1 : b.consumer === undefined ? 1 : compareStrings(a.consumer, b.consumer)));
  return { hasBaseline: before !== undefined, groups: ordered, refused: guardChanges(before, after, outcome) };
}
