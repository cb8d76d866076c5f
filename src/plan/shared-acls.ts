import { aclResourceId } from '../naming';
import { aclRules } from '../model/acls';
import type { ProjectModel } from '../model/types';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { compareStrings } from '../util/compare';
import { heldResources } from './held-by-state';
import { removedStacks } from './removed-stacks';

/** Kafka keeps one ACL per (principal, operation, resource), however many stacks declare it. */
const aclKey = (r: { principal: string; operation: string; resourceType: string; resourceName: string }) => `${r.principal} ${r.operation} ${r.resourceType} '${r.resourceName}'`;

/** The ACLs each topology's stack declares (of the stacks `only` names, if given): resource id by Kafka key. */
function declared(model: ProjectModel, only?: ReadonlySet<string>): Map<string, Map<string, string>> {
  const byStack = new Map<string, Map<string, string>>();
  for (const t of model.topologies) if (!only || only.has(t.name)) byStack.set(t.name, new Map(aclRules(t).map((r) => [aclKey(r), aclResourceId(r)])));
  return byStack;
}

/**
 * ACLs keyed across stacks, as topics are: a stack that drops an ACL deletes it from
 * Kafka, so an ACL another stack still declares (a principal shared by consumers of two
 * topologies) would be revoked under that stack's consumer. Refused; the stacks that
 * hand an ACL over are those of a declared move, whose removed blocks forget it instead.
 */
export function sharedAclsDropped(before: ProjectModel, after: ProjectModel, changed: ReadonlySet<string>): Diagnostic[] {
  // The other stacks' ACLs are computed only when a changed stack drops one: most runs drop none.
  const [was, nowChanged] = [declared(before, changed), declared(after, changed)];
  let everyStack: Map<string, Map<string, string>> | undefined;
  const problems: Diagnostic[] = [];
  for (const stack of [...changed].sort(compareStrings)) {
    const kept = nowChanged.get(stack) ?? new Map<string, string>();
    const topology = after.topologies.find((t) => t.name === stack) ?? before.topologies.find((t) => t.name === stack)!;
    // ACLs a removed block forgets (a declared move) stay in Kafka.
    const forgotten = new Set(after.topologies.flatMap((t) => t.handedOver ?? []).filter((h) => h.stack === stack).flatMap((h) => h.acls));
    for (const [acl, id] of [...(was.get(stack) ?? [])].sort(([a], [b]) => compareStrings(a, b))) {
      if (kept.has(acl) || forgotten.has(id)) continue;
      everyStack ??= declared(after);
      const other = [...everyStack].find(([name, acls]) => name !== stack && acls.has(acl));
      if (!other) continue;
      problems.push(
        specError(
          topology.source.file,
          'consumers',
          `stack '${stack}' would delete the ACL ${acl} from Kafka, which stack '${other[0]}' still declares, so its consumer would lose it; keep the consumer that needs it in '${stack}' (decommissioned) until it is moved (previousTopology: '${stack}' on it in '${other[0]}', whose stack then takes the ACL over), and remove it from there`,
        ),
      );
    }
  }
  return problems;
}

/**
 * An ACL that a stack may still hold in its state while its configuration no longer
 * declares it (see held-by-state.ts), declared again in another stack by a changed
 * topology: Kafka keeps one such ACL, so applying the first stack would revoke it under
 * the other stack's consumer. Refused, as its topics are, until the operator says the
 * first stack was applied (`--applied`).
 */
export function heldAclsDeclared(after: ProjectModel, changed: ReadonlySet<string>): Diagnostic[] {
  const held = new Map([...heldResources(after)].flatMap(([stack, h]) => h.acls.map((id) => [id, stack] as const)));
  if (held.size === 0) return [];
  const kept = removedStacks(after);
  const problems: Diagnostic[] = [];
  for (const topology of after.topologies.filter((t) => changed.has(t.name))) {
    for (const rule of aclRules(topology)) {
      const stack = held.get(aclResourceId(rule));
      if (stack === undefined || stack === topology.name) continue;
      problems.push(
        specError(
          topology.source.file,
          'consumers',
          `stack '${topology.name}' declares the ACL ${aclKey(rule)}, but stack '${stack}', ${kept.has(stack) ? 'kept (empty) since its topology file was deleted' : 'whose configuration no longer declares it since a synth deleted it'}, may still hold it in its Terraform state: krt cannot tell offline whether it was applied, and if not, applying '${stack}' would delete it from Kafka under '${topology.name}''s consumer; apply '${stack}' first, as committed (terraform apply in its folder, or cdktf deploy ${stack} without this edit), then run krt synth (or krt plan) again with --applied ${stack}`,
        ),
      );
    }
  }
  return problems;
}
