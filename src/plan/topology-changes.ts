import { aclRules } from '../model/acls';
import type { AclRule } from '../model/acls';
import type { TopologyModel } from '../model/types';
import { aclResourceId } from '../naming';
import type { PlannedChange } from './types';

const aclKey = (rule: AclRule) => `${rule.principal} ${rule.operation} ${rule.resourceType} '${rule.resourceName}'`;

/**
 * Changes of a topology as a whole: cluster settings and the ACLs of its principals.
 * `heir` is the topology that generates this one's stack now (itself, or the one renamed
 * from it): the ACLs it hands over with a moved consumer are forgotten, not revoked.
 */
export function topologyChanges(was: TopologyModel | undefined, now: TopologyModel | undefined, heir: TopologyModel | undefined = now): PlannedChange[] {
  const changes: PlannedChange[] = [];
  if (was && now && was.cluster.minInsyncReplicas !== now.cluster.minInsyncReplicas) {
    changes.push({ risk: 'safe', text: `min.insync.replicas ${was.cluster.minInsyncReplicas} -> ${now.cluster.minInsyncReplicas} on every topic created here` });
  }
  if (was && now && was.cluster.replicationFactor !== now.cluster.replicationFactor) {
    // The provider reassigns replicas in place (Kafka >= 2.4); only the Terraform variable's default changes here.
    changes.push({ risk: 'safe', text: `replication factor ${was.cluster.replicationFactor} -> ${now.cluster.replicationFactor} (the default of the replication_factor variable): replicas are reassigned in place` });
  }
  const old = new Map((was ? aclRules(was) : []).map((r) => [aclKey(r), r]));
  const current = new Map((now ? aclRules(now) : []).map((r) => [aclKey(r), r]));
  const resources = new Set([...current.values()].map((r) => `${r.resourceType} ${r.resourceName}`));
  for (const [key, rule] of current) {
    if (!old.has(key)) changes.push({ risk: 'safe', text: `ACL added: ${key} (${rule.reason})` });
  }
  const handedOver = new Set((heir?.handedOver ?? []).filter((h) => h.stack === was?.name).flatMap((h) => h.acls));
  for (const [key, rule] of old) {
    if (current.has(key)) continue;
    if (handedOver.has(aclResourceId(rule))) {
      changes.push({ risk: 'safe', text: `ACL handed over: ${key} (this stack forgets it, removed with destroy = false; the consumer's new stack grants it)` });
      continue;
    }
    // Revoking access to a resource that stays can stop a service still running the old router package.
    const stays = resources.has(`${rule.resourceType} ${rule.resourceName}`);
    changes.push(
      stays
        ? { risk: 'needs-migration', text: `ACL removed: ${key}; deploy the services that no longer need it first` }
        : { risk: 'safe', text: `ACL removed: ${key}` },
    );
  }
  return changes;
}
