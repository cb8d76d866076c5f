import type { ConsumerModel, ProjectModel, TopicModel } from '../model/types';

/** Where a topic sits in a model: the consumer that names it and in what role. */
export interface TopicOwner {
  readonly consumer: ConsumerModel;
  readonly topic: TopicModel;
}

/** Every topic a model names (main topics too, managed or not), with its consumer; the first one wins. */
export function topicOwners(model: ProjectModel): Map<string, TopicOwner> {
  const owners = new Map<string, TopicOwner>();
  for (const consumer of model.topologies.flatMap((t) => t.consumers)) {
    for (const topic of [consumer.mainTopic, ...consumer.tiers, ...consumer.drainingTiers, consumer.dlq, consumer.dlqAudit]) {
      if (!owners.has(topic.name) || (topic.kind === 'main' && topic.managed)) owners.set(topic.name, { consumer, topic });
    }
  }
  return owners;
}

/** A topic's role, in operator words: "consumer 'a''s DLQ". */
export function role(owner: TopicOwner): string {
  const t = owner.topic;
  const what = t.kind === 'retry' ? `tier ${t.label}` : t.kind === 'dlq' ? 'DLQ' : t.kind === 'dlq-audit' ? 'DLQ audit log' : 'main topic';
  return `consumer '${owner.consumer.name}' (its ${what})`;
}
