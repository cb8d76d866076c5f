import type { ConsumerModel, ProjectModel, TopicModel } from '../model/types';
import { compareStrings } from '../util/compare';

/** A consumer as the committed output has it and as the spec has it now; one side may be absent. */
export interface ConsumerPair {
  readonly name: string;
  readonly before?: ConsumerModel;
  readonly after?: ConsumerModel;
}

/**
 * Consumers matched as Kafka sees them: by name, and a consumer the other side does not
 * name by the DLQ it keeps (its records and its replay group live there), so a renamed
 * consumer is compared with what it was (its groups, its ordering), not taken for a new
 * one. Sorted by topology then name; a pair carries the name the spec gives now.
 */
export function consumerPairs(before: ProjectModel | undefined, after: ProjectModel): ConsumerPair[] {
  const byName = new Map<string, { before?: ConsumerModel; after?: ConsumerModel }>();
  for (const c of (before?.topologies ?? []).flatMap((t) => t.consumers)) byName.set(c.name, { before: c });
  for (const c of after.topologies.flatMap((t) => t.consumers)) byName.set(c.name, { ...byName.get(c.name), after: c });
  const unpaired = (side: 'before' | 'after') => new Map([...byName].filter(([, p]) => !p.before !== !p.after && p[side]).map(([name, p]) => [p[side]!.dlq.name, name]));
  const gone = unpaired('before');
  for (const [dlq, name] of unpaired('after')) {
    const was = gone.get(dlq);
    if (was === undefined) continue;
    byName.set(name, { before: byName.get(was)!.before, after: byName.get(name)!.after });
    byName.delete(was);
  }
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
