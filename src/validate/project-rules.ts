import { aclResourceId, aclResourceIds, metricCollisionKey, principalName, sameAddressReason, topicResourceId } from '../naming';
import { aclRuleKey, aclRules, forEachGrant } from '../model/acls';
import type { AclRule } from '../model/acls';
import type { ConsumerModel, ProjectModel, TopologyModel } from '../model/types';
import { specError, specWarning } from './diagnostic';
import type { Diagnostic } from './diagnostic';

/** Rules across consumers and topology files: names must not collide (R2). */
export function checkProject(project: ProjectModel): Diagnostic[] {
  const consumers = project.topologies.flatMap((t) => t.consumers);
  return [
    ...duplicateTopologies(project.topologies),
    ...duplicateConsumers(consumers, unusedNames(consumers.map((c) => c.name))),
    ...topicCollisions(consumers, unusedNames(consumers.flatMap((c) => [c.mainTopic.name, c.retryTopicBase]))),
    ...groupCollisions(consumers, unusedNames(consumers.flatMap((c) => Object.values(c.groups)))),
    ...mainTopicDisagreements(consumers),
    ...terraformAddressCollisions(project.topologies),
    ...aclAddressCollisions(project.topologies),
    ...metricNameWarnings(consumers),
  ];
}

function duplicateTopologies(topologies: readonly TopologyModel[]): Diagnostic[] {
  const seen = new Map<string, TopologyModel>();
  return topologies.flatMap((topology) => {
    const first = seen.get(topology.name);
    if (topology.name === '') return []; // a name that did not parse, reported already
    if (!first) {
      seen.set(topology.name, topology);
      return [];
    }
    return [specError(topology.source.file, 'name', `topology '${topology.name}' is also defined in ${first.source.file}; each topology needs its own name (it names the Terraform stack)`)];
  });
}

/**
 * Proposes names that nothing uses yet, and never the same one twice, so that a fix a
 * message proposes cannot collide in turn: the first of `wanted`, `wanted-2`, ... that is free.
 */
function unusedNames(inUse: readonly string[]): (wanted: string) => string {
  const taken = new Set(inUse);
  return (wanted) => {
    let name = wanted;
    for (let n = 2; taken.has(name); n++) name = `${wanted}-${n}`;
    taken.add(name);
    return name;
  };
}

function duplicateConsumers(consumers: readonly ConsumerModel[], propose: (wanted: string) => string): Diagnostic[] {
  const seen = new Map<string, ConsumerModel>();
  return consumers.flatMap((consumer) => {
    const first = seen.get(consumer.name);
    if (!first) {
      seen.set(consumer.name, consumer);
      return [];
    }
    return [specError(consumer.source.file, `${consumer.source.path}.name`, `consumer '${consumer.name}' is already defined at ${where(first)}; consumer names label metrics and runbooks, so give this one another name, e.g. '${propose(consumer.name)}'`)];
  });
}

type TopicRole = 'main' | 'retry' | 'dlq';
interface Claim {
  readonly consumer: ConsumerModel;
  readonly role: TopicRole | 'group' | 'retry group' | 'replay group' | 'monitor group';
}

function claims<K extends string>(consumers: readonly ConsumerModel[], namesOf: (c: ConsumerModel) => [string, K][]) {
  const byName = new Map<string, { consumer: ConsumerModel; role: K }[]>();
  for (const consumer of consumers) {
    for (const [name, role] of namesOf(consumer)) {
      byName.set(name, [...(byName.get(name) ?? []), { consumer, role }]);
    }
  }
  return byName;
}

/**
 * A retry or DLQ topic generated for two consumers, or equal to someone's main topic.
 * Reported once per pair of consumers, on the later one, with the fix.
 */
function topicCollisions(consumers: readonly ConsumerModel[], propose: (wanted: string) => string): Diagnostic[] {
  const byName = claims<TopicRole>(consumers, (c) => [
    [c.mainTopic.name, 'main'],
    ...[...c.tiers, ...c.drainingTiers].map((t): [string, TopicRole] => [t.name, 'retry']),
    [c.dlq.name, 'dlq'],
    [c.dlqAudit.name, 'dlq'],
  ]);
  const pairs = new Map<string, { first: Claim; second: Claim; topics: string[] }>();
  for (const [topic, list] of byName) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [first, second] = [list[i]!, list[j]!];
        if (first.role === 'main' && second.role === 'main') continue;
        if (first.consumer === second.consumer && first.role === second.role) continue;
        const key = `${first.consumer.name}\u0000${second.consumer.name}`;
        const pair = pairs.get(key) ?? { first, second, topics: [] };
        // Consumers that share a name (told by its own rule) make one pair: each topic is named once.
        if (!pair.topics.includes(topic)) pair.topics.push(topic);
        pairs.set(key, pair);
      }
    }
  }
  return [...pairs.values()].flatMap(({ first, second, topics }) => {
    const names = `${topics.length > 1 ? 'topics' : 'topic'} ${topics.map((t) => `'${t}'`).join(', ')}`;
    if (first.consumer === second.consumer) {
      const c = first.consumer;
      return [specError(c.source.file, `${c.source.path}.retryTopicBase`, `${names} is both the main topic and a retry or DLQ topic of consumer '${c.name}'; set retryTopicBase to e.g. '${propose(`${c.mainTopic.name}.${c.name}`)}'`)];
    }
    // Both sides are told: either consumer can take the fix.
    return [
      [second.consumer, first.consumer],
      [first.consumer, second.consumer],
    ].map(([c, other]) =>
      specError(c!.source.file, `${c!.source.path}.retryTopicBase`, `${names} of consumer '${c!.name}' ${topics.length > 1 ? 'are' : 'is'} also generated for consumer '${other!.name}' (${where(other!)}); retry and DLQ topics belong to one consumer (R2), so give one of them its own stem, e.g. here retryTopicBase: '${propose(`${c!.mainTopic.name}.${c!.name}`)}'`),
    );
  });
}

function groupCollisions(consumers: readonly ConsumerModel[], propose: (wanted: string) => string): Diagnostic[] {
  const byName = claims<'group' | 'retry group' | 'replay group' | 'monitor group'>(consumers, (c) => [
    [c.groups.main, 'group'],
    // With park-by-key the main group reads the tiers too: one claim, not two.
    ...(c.groups.retry === c.groups.main ? [] : [[c.groups.retry, 'retry group'] as [string, 'retry group']]),
    [c.groups.replay, 'replay group'],
    [c.groups.monitor, 'monitor group'],
  ]);
  const reported = new Set<string>();
  const problems: Diagnostic[] = [];
  for (const [group, list] of byName) {
    const [first, second] = list;
    if (!first || !second) continue;
    const key = `${first.consumer.name}\u0000${second.consumer.name}`;
    if (reported.has(key)) continue;
    reported.add(key);
    const c = second.consumer;
    problems.push(
      specError(c.source.file, `${c.source.path}.group`, `consumer group '${group}' (${second.role} of '${c.name}') is also the ${first.role} of consumer '${first.consumer.name}' (${where(first.consumer)}); a group keeps one consumer's offsets, so give '${c.name}' its own group, e.g. group: '${propose(c.name)}'`),
    );
  }
  return problems;
}

/** Consumers of one main topic must agree on its partitions, and only one may manage it. */
function mainTopicDisagreements(consumers: readonly ConsumerModel[]): Diagnostic[] {
  const byTopic = new Map<string, ConsumerModel[]>();
  for (const c of consumers) byTopic.set(c.mainTopic.name, [...(byTopic.get(c.mainTopic.name) ?? []), c]);
  const problems: Diagnostic[] = [];
  for (const [topic, list] of byTopic) {
    const [first, ...rest] = list;
    for (const c of rest) {
      if (c.mainTopic.partitions !== first!.mainTopic.partitions) {
        problems.push(specError(c.source.file, `${c.source.path}.topic.partitions`, `'${topic}' has ${c.mainTopic.partitions} partitions here but ${first!.mainTopic.partitions} for consumer '${first!.name}' (${where(first!)}); give the topic's real partition count in both`));
      }
    }
    const managers = list.filter((c) => c.mainTopic.managed);
    for (const c of managers.slice(1)) {
      problems.push(specError(c.source.file, `${c.source.path}.topic.managed`, `'${topic}' is already managed by consumer '${managers[0]!.name}' (${where(managers[0]!)}); only one topology may create a topic, so set managed: false here`));
    }
  }
  return problems;
}

/** Topics whose names differ only in '.' and '_', or in a leading '_' (krt's for a name starting with a digit), would share one Terraform address in a stack. */
function terraformAddressCollisions(topologies: readonly TopologyModel[]): Diagnostic[] {
  return topologies.flatMap((topology) => {
    const seen = new Map<string, string>();
    const problems: Diagnostic[] = [];
    for (const c of topology.consumers) {
      const topics = [...(c.mainTopic.managed ? [c.mainTopic.name] : []), ...c.tiers.map((t) => t.name), ...c.drainingTiers.map((t) => t.name), c.dlq.name, c.dlqAudit.name];
      for (const topic of topics) {
        const id = topicResourceId(topic);
        const other = seen.get(id);
        if (other !== undefined && other !== topic) {
          problems.push(specError(c.source.file, `${c.source.path}.retryTopicBase`, `topics '${other}' and '${topic}' would be one Terraform resource of stack '${topology.name}': ${sameAddressReason(other, topic)}; rename one`));
        }
        seen.set(id, topic);
      }
    }
    return problems;
  });
}

/**
 * Two ACLs of one stack whose addresses come out alike: an address keeps letters, digits,
 * '_' and '-' of the principal and resource names, so principals or groups that differ
 * only in the others ('.' and '_': User:billing.svc and User:billing_svc) would be one
 * Terraform resource. Told once per pair of names.
 */
function aclAddressCollisions(topologies: readonly TopologyModel[]): Diagnostic[] {
  return topologies.flatMap((topology) => (aclAddressesCollide(topology) ? aclAddressCollisionsOf(topology) : []));
}

/**
 * Whether two different ACLs of the stack share an address, in one pass over its grants:
 * most stacks have no collision, and need not build, sort and word the rules for it.
 */
function aclAddressesCollide(topology: TopologyModel): boolean {
  const idOf = aclResourceIds();
  const ruleAt = new Map<string, string>();
  let collide = false;
  forEachGrant(topology, (principal, _role, grant) => {
    if (collide) return;
    const id = idOf({ principalName: principalName(principal), operation: grant.operation, resourceType: grant.resourceType, resourceName: grant.resourceName });
    const rule = aclRuleKey(principal, grant);
    const other = ruleAt.get(id);
    if (other === undefined) ruleAt.set(id, rule);
    else if (other !== rule) collide = true;
  });
  return collide;
}

/** The collisions of a stack whose addresses collide, each pair of names told once, in the order of its rules. */
function aclAddressCollisionsOf(topology: TopologyModel): Diagnostic[] {
  const seen = new Map<string, AclRule>();
  const told = new Set<string>();
  const problems: Diagnostic[] = [];
  for (const rule of aclRules(topology)) {
    const id = aclResourceId(rule);
    const other = seen.get(id);
    seen.set(id, other ?? rule);
    if (other === undefined) continue;
    const [a, b] = other.principal !== rule.principal ? [other.principal, rule.principal] : [other.resourceName, rule.resourceName];
    const what = other.principal !== rule.principal ? 'principals' : `${rule.resourceType === 'Group' ? 'groups' : 'names'}`;
    if (told.has(`${a}\0${b}`)) continue;
    told.add(`${a}\0${b}`);
    const at = topology.consumers.find((c) => c.principal === b || Object.values(c.groups).includes(b)) ?? topology.consumers.find((c) => c.principal === rule.principal);
    const reason = sameAddressReason(a, b, (name) => (what === 'principals' ? principalName(name) : undefined));
    const message = `${what} '${a}' and '${b}' would give their ACLs one Terraform address, kafka_acl.${id}, in stack '${topology.name}': ${reason}; rename one`;
    problems.push(at ? specError(at.source.file, at.source.path, message) : specError(topology.source.file, 'consumers', message));
  }
  return problems;
}

/** Kafka's metrics replace '.' with '_': two such topics report under one name. A warning only. */
function metricNameWarnings(consumers: readonly ConsumerModel[]): Diagnostic[] {
  const byKey = new Map<string, string>();
  const warned = new Set<string>();
  const problems: Diagnostic[] = [];
  for (const c of consumers) {
    for (const topic of [c.mainTopic.name, ...c.tiers.map((t) => t.name), c.dlq.name]) {
      const key = metricCollisionKey(topic);
      const other = byKey.get(key);
      if (other !== undefined && other !== topic && !warned.has(key)) {
        warned.add(key);
        problems.push(specWarning(c.source.file, c.source.path, `topics '${other}' and '${topic}' differ only in '.' and '_', which collide in Kafka's metric names; consider renaming one`));
      }
      byKey.set(key, topic);
    }
  }
  return problems;
}

function where(consumer: ConsumerModel): string {
  return `${consumer.source.file} ${consumer.source.path}`;
}
