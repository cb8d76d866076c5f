import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { compareStrings } from '../util/compare';
import { aclResourceId, defaultDriftPrincipal, defaultMonitorPrincipal, defaultReplayPrincipal } from '../naming';
import { aclRules } from './acls';
import type { ConsumerModel, HandOver, TopologyModel } from './types';

/** The topics a consumer's stack holds: a managed main topic, live and draining tiers, DLQ and audit log. */
export function stackTopics(c: ConsumerModel): string[] {
  return [...(c.mainTopic.managed ? [c.mainTopic.name] : []), ...c.tiers.map((t) => t.name), ...c.drainingTiers.map((t) => t.name), c.dlq.name, c.dlqAudit.name];
}

/**
 * How snapshots of version 3 and before recorded a stack kept for a deleted topology file:
 * a former stack of the first topology with nothing handed over. The model now carries
 * kept stacks at project level (`ProjectModel.keptStacks`); this tells them apart only
 * when such a snapshot is migrated (writer/model-snapshot.ts).
 */
export function isKeptStack(h: HandOver): boolean {
  return h.topics.length === 0 && h.acls.length === 0;
}

/**
 * A declared move across stacks needs both ends: the new stack imports the topics and
 * the old one forgets them. The old stack is that of a live topology, or one this
 * project still generates for a rename (`previousName`).
 */
export function checkMoves(topologies: readonly TopologyModel[]): Diagnostic[] {
  const live = new Set(topologies.map((t) => t.name));
  const renamed = new Map<string, TopologyModel>();
  const problems: Diagnostic[] = [];
  for (const topology of topologies) {
    const old = topology.previousName;
    if (old === undefined) continue;
    if (old === topology.name) {
      problems.push(specError(topology.source.file, 'previousName', `previousName '${old}' is this topology's own name; remove previousName`));
    } else if (live.has(old)) {
      problems.push(specError(topology.source.file, 'previousName', `previousName '${old}' names a topology that still exists, so its stack cannot be handed over; to move some of its consumers here, set previousTopology: '${old}' on each of them instead`));
    } else if (renamed.has(old)) {
      problems.push(specError(topology.source.file, 'previousName', `topology '${renamed.get(old)!.name}' says it was renamed from '${old}' too; only one topology takes over a stack: set previousTopology: '${old}' on the consumers that moved here instead`));
    } else renamed.set(old, topology);
  }
  for (const topology of topologies) {
    for (const consumer of topology.consumers) {
      const from = consumer.previousTopology;
      if (from === undefined || from === topology.previousName || live.has(from) || renamed.has(from)) continue;
      problems.push(
        specError(consumer.source.file, `${consumer.source.path}.previousTopology`, `previousTopology '${from}' is neither a topology nor the previousName of one, so no stack would forget its topics; if topology '${from}' was renamed, set previousName: '${from}' on its new form, otherwise check the name`),
      );
    }
  }
  return problems;
}

/**
 * Tells each topology which topics consumers took from the stacks it generates (its
 * own, and that of its previous name), so its stack can forget them. Assumes
 * `checkMoves` found nothing.
 */
export function handOverMoves(topologies: readonly TopologyModel[]): TopologyModel[] {
  const owner = new Map<string, string>(topologies.map((t) => [t.name, t.name]));
  for (const t of topologies) if (t.previousName) owner.set(t.previousName, t.name);
  const handed = new Map<string, Map<string, { topics: Set<string>; acls: Set<string> }>>();
  for (const topology of topologies) {
    for (const consumer of topology.consumers) {
      const from = consumer.previousTopology;
      const by = from === undefined ? undefined : owner.get(from);
      if (from === undefined || by === undefined) continue;
      const stacks = handed.get(by) ?? new Map<string, { topics: Set<string>; acls: Set<string> }>();
      const moved = stacks.get(from) ?? { topics: new Set<string>(), acls: new Set<string>() };
      for (const topic of stackTopics(consumer)) moved.topics.add(topic);
      // A main topic handed back to its producers in the same change was held by the old stack.
      if (!consumer.mainTopic.managed && consumer.mainTopic.previouslyManaged === true) moved.topics.add(consumer.mainTopic.name);
      // Its ACLs as the new stack grants them: the old stack forgets any it has at the same
      // address. The new topology's own default principals cannot be in the old stack.
      const ownDefaults = new Set([defaultReplayPrincipal(topology.name), defaultMonitorPrincipal(topology.name), defaultDriftPrincipal(topology.name)]);
      for (const rule of aclRules({ ...topology, consumers: [consumer] })) if (!ownDefaults.has(rule.principal)) moved.acls.add(aclResourceId(rule));
      handed.set(by, stacks.set(from, moved));
    }
  }
  return topologies.map((topology) => {
    const stacks = handed.get(topology.name);
    if (!stacks) return topology;
    const handedOver: HandOver[] = [...stacks.entries()]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([stack, { topics, acls }]) => ({ stack, topics: [...topics].sort(compareStrings), acls: [...acls].sort(compareStrings) }));
    return { ...topology, handedOver };
  });
}
