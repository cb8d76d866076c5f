import type { ConsumerModel, ProjectModel, TopicModel } from '../model/types';
import { compareStrings } from '../util/compare';

/** A consumer as the committed output has it and as the spec has it now; one side may be absent. */
export interface ConsumerPair {
  readonly name: string;
  readonly before?: ConsumerModel;
  readonly after?: ConsumerModel;
}

/** Consumers matched by name (unique across topologies), sorted by topology then name. */
export function consumerPairs(before: ProjectModel | undefined, after: ProjectModel): ConsumerPair[] {
  const byName = new Map<string, { before?: ConsumerModel; after?: ConsumerModel }>();
  for (const c of (before?.topologies ?? []).flatMap((t) => t.consumers)) byName.set(c.name, { before: c });
  for (const c of after.topologies.flatMap((t) => t.consumers)) byName.set(c.name, { ...byName.get(c.name), after: c });
  return [...byName.entries()]
    .map(([name, pair]) => ({ name, ...pair }))
    .sort((a, b) => compareStrings(topologyOf(a), topologyOf(b)) || compareStrings(a.name, b.name));
}

export function topologyOf(pair: ConsumerPair): string {
  return (pair.after ?? pair.before)!.topology;
}

/** Every topic a consumer's stack keeps: live and draining tiers, DLQ, audit, and a managed main topic. */
export function keptTopics(c: ConsumerModel): TopicModel[] {
  return [...(c.mainTopic.managed ? [c.mainTopic] : []), ...c.tiers, ...(c.drainingTiers ?? []), c.dlq, c.dlqAudit];
}

/** The tiers of a consumer, live and draining, by topic name. */
export function tiersByTopic(c: ConsumerModel | undefined) {
  return new Map([...(c?.tiers ?? []), ...(c?.drainingTiers ?? [])].map((t) => [t.name, t]));
}
