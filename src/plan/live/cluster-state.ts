import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { retryingRetriable } from '../../dlq/retriable';
import type { AclOperation, AclResourceType } from '../../model/acls';

/** What `krt plan --live` reads from the cluster: only what the spec speaks about. */
export interface ClusterState {
  /** Topics that exist, with their partition count and the configs the spec sets. */
  readonly topics: ReadonlyMap<string, { readonly partitions: number; readonly config: Readonly<Record<string, string>> }>;
  /** Allow ACLs on literal resources of the principals asked about, as `aclKey` strings. */
  readonly acls: ReadonlySet<string>;
  /** Records not yet consumed by the group that reads each topic asked about (end offset minus committed offset). */
  readonly waiting: ReadonlyMap<string, number>;
}

export const CHECKED_CONFIGS = ['retention.ms', 'cleanup.policy', 'min.insync.replicas'] as const;

export function aclKey(principal: string, resourceType: AclResourceType, resourceName: string, operation: AclOperation): string {
  return `${principal} ${operation} ${resourceType} '${resourceName}'`;
}

const RESOURCE_TYPES: Partial<Record<AclResourceTypes, AclResourceType>> = {
  [AclResourceTypes.TOPIC]: 'Topic',
  [AclResourceTypes.GROUP]: 'Group',
  [AclResourceTypes.CLUSTER]: 'Cluster',
};
const OPERATIONS: Partial<Record<AclOperationTypes, AclOperation | 'All'>> = {
  [AclOperationTypes.READ]: 'Read',
  [AclOperationTypes.WRITE]: 'Write',
  [AclOperationTypes.DESCRIBE]: 'Describe',
  [AclOperationTypes.DESCRIBE_CONFIGS]: 'DescribeConfigs',
  [AclOperationTypes.ALL]: 'All',
};

export interface StateQuery {
  readonly topics: readonly string[];
  readonly principals: readonly string[];
  /** Topic -> the group whose committed offsets say how far it was read. */
  readonly lagOf: ReadonlyMap<string, string>;
}

/** kafkajs does not retry a group coordinator that moved or is still loading; a few tries ride it out. */
const RETRIES = 8;

/** Reads the cluster with describe-only calls; never writes. */
export async function readClusterState(admin: Admin, query: StateQuery): Promise<ClusterState> {
  const existing = new Set(await admin.listTopics());
  const present = query.topics.filter((t) => existing.has(t));
  const topics = new Map<string, { partitions: number; config: Record<string, string> }>();
  if (present.length > 0) {
    const [{ topics: metadata }, configs] = await Promise.all([
      admin.fetchTopicMetadata({ topics: present }),
      admin.describeConfigs({ includeSynonyms: false, resources: present.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [...CHECKED_CONFIGS] })) }),
    ]);
    const configOf = new Map(configs.resources.map((r) => [r.resourceName, Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]))]));
    for (const t of metadata) topics.set(t.name, { partitions: t.partitions.length, config: configOf.get(t.name) ?? {} });
  }
  const acls = new Set<string>();
  for (const principal of query.principals) {
    const found = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ALLOW,
    });
    for (const resource of found.resources) {
      for (const acl of resource.acls) {
        const type = RESOURCE_TYPES[resource.resourceType];
        const operation = OPERATIONS[acl.operation];
        if (type && operation) acls.add(aclKey(acl.principal, type, resource.resourceName, operation as AclOperation));
      }
    }
  }
  const waiting = new Map<string, number>();
  for (const [topic, group] of query.lagOf) {
    if (!topics.has(topic)) continue;
    // Side by side; once either failed the other's retries stop (as krt lag's): the caller
    // disconnects then, and a retry going on would run against that admin.
    const stop = new AbortController();
    const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), retryingRetriable(() => admin.fetchOffsets({ groupId: group, topics: [topic] }), RETRIES, stop.signal)]).finally(() => stop.abort());
    const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
    let count = 0n;
    for (const end of ends) {
      const offset = done.get(end.partition) ?? -1n;
      count += BigInt(end.high) - (offset < 0n ? BigInt(end.low) : offset);
    }
    waiting.set(topic, Number(count));
  }
  return { topics, acls, waiting };
}
