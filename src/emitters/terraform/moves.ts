import { aclResourceId, topicResourceId } from '../../naming';
import { aclRules } from '../../model/acls';
import { stackTopics } from '../../model/hand-over';
import type { HandOver, TopologyModel } from '../../model/types';
import { compareStrings } from '../../util/compare';

/**
 * What a stack takes over from elsewhere and what it lets go of. Terraform (and
 * OpenTofu) 1.7+ do both in the plan itself: an `import` block adopts an existing topic
 * with its records, a `removed` block with `destroy = false` forgets a resource without
 * deleting it. Both come from declarations in the spec (previousTopology, previousName,
 * previouslyManaged), so they stay exactly as long as the declaration does: a second
 * synth before the apply keeps them, and once applied they change nothing.
 */
export interface StackMoves {
  /** Topic names the stack imports (the provider's import id is the topic's name). */
  readonly imports: readonly string[];
  /** Resource addresses the stack forgets. */
  readonly removed: readonly string[];
}

const topicAddress = (topic: string) => `kafka_topic.${topicResourceId(topic)}`;

/** The addresses a stack forgets when consumers moved away from it. */
export function handedOverAddresses(h: HandOver): string[] {
  return [...h.topics.map(topicAddress), ...h.acls.map((id) => `kafka_acl.${id}`)];
}

/** The moves of a topology's own stack. */
export function ownMoves(topology: TopologyModel): StackMoves {
  const imports = new Set<string>();
  const removed = new Set<string>();
  for (const consumer of topology.consumers) {
    if (consumer.previousTopology !== undefined) for (const topic of stackTopics(consumer)) imports.add(topic);
    const main = consumer.mainTopic;
    if (main.managed && main.previouslyManaged === false) imports.add(main.name);
    // Whichever stack holds it forgets it: this one, or the old one of a consumer that also moved (see handOverMoves).
    if (!main.managed && main.previouslyManaged === true) removed.add(topicAddress(main.name));
  }
  for (const h of topology.handedOver ?? []) if (h.stack === topology.name) for (const a of handedOverAddresses(h)) removed.add(a);
  // Terraform refuses a removed block for a resource the configuration still has.
  const declared = new Set([
    ...topology.consumers.flatMap(stackTopics).map(topicAddress),
    ...aclRules(topology).map((rule) => `kafka_acl.${aclResourceId(rule)}`),
  ]);
  return { imports: [...imports], removed: [...removed].filter((a) => !declared.has(a)) };
}

/** The stack's JSON with its `import` and `removed` blocks, sorted; unchanged without any. */
export function withMoves(terraform: Record<string, unknown>, moves: StackMoves): Record<string, unknown> {
  const imports = [...new Set(moves.imports)].sort(compareStrings).map((topic) => ({ to: topicAddress(topic), id: topic }));
  const removed = [...new Set(moves.removed)].sort(compareStrings).map((from) => ({ from, lifecycle: { destroy: false } }));
  return {
    ...terraform,
    ...(imports.length > 0 ? { import: imports } : {}),
    ...(removed.length > 0 ? { removed } : {}),
  };
}
