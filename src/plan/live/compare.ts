import { aclRules } from '../../model/acls';
import type { ConsumerModel, ProjectModel, TopicModel } from '../../model/types';
import { aclKey, CHECKED_CONFIGS } from './cluster-state';
import type { ClusterState, StateQuery } from './cluster-state';

/** `drift`: the cluster differs from the spec; `draining`: how far a retired tier has drained. */
export interface LiveFinding {
  readonly topology: string;
  readonly consumer?: string;
  readonly kind: 'drift' | 'draining';
  readonly text: string;
}

export interface LiveOptions {
  /** The `min_insync_replicas` Terraform was applied with, when not the spec's. */
  readonly minInsyncReplicas?: number;
}

/** What to read: every topic, principal and draining tier the spec names. */
export function liveQuery(model: ProjectModel): StateQuery {
  const consumers = model.topologies.flatMap((t) => t.consumers);
  return {
    topics: [...new Set(consumers.flatMap((c) => [c.mainTopic.name, ...keptTopics(c).map((t) => t.name)]))].sort(),
    principals: [...new Set(model.topologies.flatMap((t) => [t.principals.replay, t.principals.monitor, t.principals.drift, ...t.consumers.map((c) => c.principal)]))].sort(),
    lagOf: new Map(consumers.flatMap((c) => c.drainingTiers.map((t) => [t.name, c.groups.retry] as const))),
  };
}

function keptTopics(c: ConsumerModel): TopicModel[] {
  return [...c.tiers, ...c.drainingTiers, c.dlq, c.dlqAudit];
}

/** Compares the cluster with the spec. Pure. */
export function compareLive(model: ProjectModel, state: ClusterState, options: LiveOptions = {}): LiveFinding[] {
  return model.topologies.flatMap((topology) => {
    const minInsync = String(options.minInsyncReplicas ?? topology.cluster.minInsyncReplicas);
    const consumerFindings = topology.consumers.flatMap((c) =>
      consumerDrift(c, state, minInsync).map((f) => ({ topology: topology.name, consumer: c.name, ...f })),
    );
    return [...aclDrift(model, topology.name, state).map((f) => ({ topology: topology.name, ...f })), ...consumerFindings];
  });
}

type Finding = Pick<LiveFinding, 'kind' | 'text'>;
const drift = (text: string): Finding => ({ kind: 'drift', text });

function consumerDrift(c: ConsumerModel, state: ClusterState, minInsync: string): Finding[] {
  const main = state.topics.get(c.mainTopic.name);
  const findings: Finding[] = [];
  if (!main) findings.push(drift(`main topic '${c.mainTopic.name}' does not exist`));
  else if (main.partitions !== c.mainTopic.partitions) {
    findings.push(drift(`main topic '${c.mainTopic.name}' has ${main.partitions} partitions, the spec says ${c.mainTopic.partitions}; set topic.partitions to ${main.partitions} so the tiers and DLQ follow`));
  }
  for (const topic of keptTopics(c)) {
    const live = state.topics.get(topic.name);
    if (!live) {
      findings.push(drift(`'${topic.name}' does not exist; apply the Terraform`));
      continue;
    }
    if (live.partitions !== topic.partitions) findings.push(drift(`'${topic.name}' has ${live.partitions} partitions, the spec says ${topic.partitions}`));
    if (main && topic.kind !== 'dlq-audit') {
      if (c.ordering === 'park-by-key' && topic.kind === 'retry' && live.partitions !== main.partitions) {
        findings.push(drift(`'${topic.name}' has ${live.partitions} partitions but the main topic has ${main.partitions}; park-by-key needs them equal`));
      } else if (live.partitions < main.partitions) {
        findings.push(drift(`'${topic.name}' has ${live.partitions} partitions, fewer than the ${main.partitions} of the main topic, so records of the other partitions cannot keep theirs (R4)`));
      }
    }
    const wanted: Record<string, string> = { ...topic.config, 'min.insync.replicas': minInsync };
    for (const name of CHECKED_CONFIGS) {
      const actual = live.config[name];
      if (wanted[name] !== undefined && actual !== wanted[name]) findings.push(drift(`'${topic.name}' has ${name}=${actual ?? '(unset)'}, the spec says ${wanted[name]}`));
    }
  }
  for (const tier of c.drainingTiers) {
    const waiting = state.waiting.get(tier.name);
    if (waiting === undefined) continue;
    findings.push({
      kind: 'draining',
      text: waiting === 0
        ? `draining tier ${tier.label} ('${tier.name}') is empty: it may leave retired now`
        : `draining tier ${tier.label} ('${tier.name}') still has ${waiting} records waiting; keep it retired`,
    });
  }
  return findings;
}

/**
 * Missing ACLs of this topology, and ACLs its principals hold on its topics and groups
 * that no topology grants (their ACLs elsewhere belong to other specs).
 */
function aclDrift(model: ProjectModel, topologyName: string, state: ClusterState): Finding[] {
  const topology = model.topologies.find((t) => t.name === topologyName)!;
  const rules = aclRules(topology);
  const own = rules.map((r) => aclKey(r.principal, r.resourceType, r.resourceName, r.operation));
  const granted = new Set(model.topologies.flatMap((t) => aclRules(t).map((r) => aclKey(r.principal, r.resourceType, r.resourceName, r.operation))));
  const resources = new Set(rules.filter((r) => r.resourceType !== 'Cluster').map((r) => `${r.resourceType} '${r.resourceName}'`));
  const principals = new Set(rules.map((r) => r.principal));
  const ours = (key: string) => principals.has(key.slice(0, key.indexOf(' '))) && resources.has(key.split(' ').slice(2).join(' '));
  return [
    ...own.filter((key) => !state.acls.has(key)).map((key) => drift(`ACL missing: ${key}; apply the Terraform`)),
    ...[...state.acls]
      .filter((key) => !granted.has(key) && ours(key))
      .sort()
      .map((key) => drift(`ACL not in the spec: ${key}; remove it, or declare what needs it`)),
  ];
}
