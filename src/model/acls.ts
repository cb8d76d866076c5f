import { dlqReaderGroupName, principalName } from '../naming';
import { compareStrings } from '../util/compare';
import type { ConsumerModel, TopologyModel } from './types';

export type AclRole = 'consumer' | 'replay' | 'monitor' | 'drift';
export type AclOperation = 'Read' | 'Write' | 'Describe' | 'DescribeConfigs';
export type AclResourceType = 'Topic' | 'Group' | 'Cluster';

/** The name Kafka gives the one cluster resource of an ACL. */
export const CLUSTER_RESOURCE = 'kafka-cluster';

/** One Allow ACL on a literal resource name. Kafka's Read and Write imply Describe. */
export interface AclRule {
  readonly principal: string;
  readonly principalName: string;
  readonly role: AclRole;
  readonly resourceType: AclResourceType;
  readonly resourceName: string;
  readonly operation: AclOperation;
  /** Why the principal needs it, for the README and the runbooks. */
  readonly reason: string;
}

/** What one principal is allowed on one resource, and why. */
export type AclGrant = Omit<AclRule, 'principal' | 'principalName' | 'role'>;
type Grant = AclGrant;

function consumerGrants(consumer: ConsumerModel): Grant[] {
  const topic = (resourceName: string, operation: AclOperation, reason: string): Grant => ({
    resourceType: 'Topic', resourceName, operation, reason,
  });
  const group = (resourceName: string, operation: AclOperation, reason: string): Grant => ({
    resourceType: 'Group', resourceName, operation, reason,
  });
  return [
    topic(consumer.mainTopic.name, 'Read', 'consume the main topic'),
    // A draining tier keeps its grants until it leaves the spec: nothing churns while it drains.
    ...[...consumer.tiers, ...consumer.drainingTiers].flatMap((tier) => [
      topic(tier.name, 'Read', 'the retry consumer reads the tier'),
      topic(tier.name, 'Write', 'route failures to the tier'),
    ]),
    topic(consumer.dlq.name, 'Write', 'dead-letter records that cannot be retried'),
    ...(consumer.groups.retry === consumer.groups.main
      ? [group(consumer.groups.main, 'Read', 'join the group that reads the main topic and the tiers (park-by-key), commit its offsets and read back its parked keys')]
      : [
          group(consumer.groups.main, 'Read', 'join the main group and commit its offsets'),
          group(consumer.groups.retry, 'Read', 'join the retry group and commit its offsets'),
        ]),
  ];
}

function replayGrants(consumer: ConsumerModel): Grant[] {
  const firstTier = consumer.tiers[0];
  return [
    { resourceType: 'Topic', resourceName: consumer.dlq.name, operation: 'Read', reason: 'read dead letters to replay or discard' },
    // The default replay route: the first tier reaches this consumer's group alone.
    ...(firstTier ? [{ resourceType: 'Topic', resourceName: firstTier.name, operation: 'Write', reason: 'replay to this consumer only: through its first tier, due at once' } satisfies Grant] : []),
    { resourceType: 'Topic', resourceName: consumer.mainTopic.name, operation: 'Write', reason: 'replay with --to main-topic, for every group reading it (the only route of a consumer without tiers)' },
    { resourceType: 'Group', resourceName: consumer.groups.replay, operation: 'Read', reason: 'commit replay progress (its lag is the DLQ backlog)' },
    { resourceType: 'Group', resourceName: dlqReaderGroupName(consumer.groups.replay), operation: 'Read', reason: 'read the DLQ in a group of its own, never in the replay group' },
    ...(consumer.ordering === 'park-by-key'
      ? [{ resourceType: 'Group', resourceName: consumer.groups.main, operation: 'Describe', reason: "read the main group's parked keys, so a replay never overtakes them" } satisfies Grant]
      : []),
    { resourceType: 'Topic', resourceName: consumer.dlqAudit.name, operation: 'Write', reason: 'record every replay and discard, with who and why' },
    { resourceType: 'Topic', resourceName: consumer.dlqAudit.name, operation: 'Read', reason: 'show the audit log in krt console, read in the replay group without committing' },
  ];
}

function monitorGrants(consumer: ConsumerModel): Grant[] {
  return [
    ...[...consumer.tiers, ...consumer.drainingTiers].map((tier): Grant => ({
      resourceType: 'Topic', resourceName: tier.name, operation: 'Read', reason: 'read tier offsets and the head record for tier lag and overdue records',
    })),
    { resourceType: 'Topic', resourceName: consumer.dlq.name, operation: 'Read', reason: 'read DLQ offsets and the oldest unhandled record' },
    { resourceType: 'Topic', resourceName: consumer.mainTopic.name, operation: 'Read', reason: "read main-topic offsets and the main group's next record for main lag in records and seconds" },
    { resourceType: 'Group', resourceName: consumer.groups.main, operation: 'Describe', reason: 'read the main group offsets for main lag' },
    { resourceType: 'Group', resourceName: consumer.groups.retry, operation: 'Describe', reason: 'read the retry group offsets for tier lag' },
    { resourceType: 'Group', resourceName: consumer.groups.replay, operation: 'Describe', reason: 'read the replay group offsets for DLQ size' },
    { resourceType: 'Group', resourceName: consumer.groups.monitor, operation: 'Read', reason: 'read the head of the DLQ and the audit log in a group of its own, never committing' },
    // krt console read-only: the pages read the DLQ where krt dlq does, and the audit log says who handled what.
    { resourceType: 'Group', resourceName: dlqReaderGroupName(consumer.groups.replay), operation: 'Read', reason: 'browse the DLQ in krt console (read-only), in the DLQ reader group, whose offsets mean nothing' },
    { resourceType: 'Topic', resourceName: consumer.dlqAudit.name, operation: 'Read', reason: "read the DLQ audit log: what was handled where Kafka deleted the replay group's commits (DLQ size), and who replayed or discarded what in krt console (read-only)" },
  ];
}

/** `krt plan --live`: look, never touch. Describe on the cluster lists ACLs. */
function driftGrants(consumer: ConsumerModel): Grant[] {
  const topics = [consumer.mainTopic, ...consumer.tiers, ...consumer.drainingTiers, consumer.dlq, consumer.dlqAudit];
  return [
    { resourceType: 'Cluster', resourceName: CLUSTER_RESOURCE, operation: 'Describe', reason: 'list the ACLs of the principals the spec names' },
    ...topics.flatMap((topic): Grant[] => [
      { resourceType: 'Topic', resourceName: topic.name, operation: 'Describe', reason: 'read partitions and offsets' },
      { resourceType: 'Topic', resourceName: topic.name, operation: 'DescribeConfigs', reason: 'read retention, cleanup.policy and min.insync.replicas' },
    ]),
    ...[...new Set([consumer.groups.main, consumer.groups.retry, consumer.groups.replay])].map((group): Grant => ({
      resourceType: 'Group', resourceName: group, operation: 'Describe', reason: 'read committed offsets, e.g. of draining tiers',
    })),
  ];
}

/**
 * The least-privilege ACLs of a topology: each consumer's own principal, the replay
 * principal and the monitor principal. One rule per (principal, resource, operation),
 * sorted, so the Terraform output is stable.
 */
export function aclRules(topology: TopologyModel): AclRule[] {
  const rules = new Map<string, AclRule>();
  forEachGrant(topology, (principal, role, grant) => {
    const key = aclRuleKey(principal, grant);
    if (!rules.has(key)) rules.set(key, { principal, principalName: principalName(principal), role, ...grant });
  });
  return [...rules.values()].sort(compareAclRules);
}

/** What makes an ACL one rule: its principal, resource and operation (the first reason given is kept). */
export function aclRuleKey(principal: string, grant: AclGrant): string {
  return `${principal}\u0000${grant.resourceType}\u0000${grant.resourceName}\u0000${grant.operation}`;
}

/** Every grant of a topology with its principal and role, in the order `aclRules` takes them, the same rule more than once. */
export function forEachGrant(topology: TopologyModel, visit: (principal: string, role: AclRole, grant: AclGrant) => void): void {
  const each = (principal: string, role: AclRole, grants: readonly Grant[]) => {
    for (const grant of grants) visit(principal, role, grant);
  };
  for (const consumer of topology.consumers) {
    each(consumer.principal, 'consumer', consumerGrants(consumer));
    each(topology.principals.replay, 'replay', replayGrants(consumer));
    each(topology.principals.monitor, 'monitor', monitorGrants(consumer));
    each(topology.principals.drift, 'drift', driftGrants(consumer));
  }
}

/** Principal, then resource type, name and operation: the order the Terraform and the runbooks list ACLs in. */
export function compareAclRules(a: AclRule, b: AclRule): number {
  return (
    compareStrings(a.principal, b.principal) ||
    compareStrings(a.resourceType, b.resourceType) ||
    compareStrings(a.resourceName, b.resourceName) ||
    compareStrings(a.operation, b.operation)
  );
}
