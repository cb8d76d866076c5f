import type { ConsumerModel, ProjectModel } from '../model/types';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { judgeOutcome } from './outcome';
import type { StackResources } from './stack-resources';
import type { Outcome } from './outcome';
import { consumerPairs } from './pairs';
import { heldAclsDeclared, sharedAclsDropped } from './shared-acls';
import { changedTopologies } from './stack-resources';

/**
 * Edits that would destroy records in flight, refused by `krt synth` and `krt plan`
 * until the spec says how to make them safely. `before` is the committed model snapshot.
 * Whatever happens to topics is judged on the Terraform outcome alone (`judgeOutcome`);
 * only what Terraform cannot see, the group that reads the tiers, is judged here.
 */
export function guardChanges(before: ProjectModel | undefined, after: ProjectModel, outcome?: Outcome, committed?: ReadonlyMap<string, StackResources>, applied?: ReadonlySet<string>): Diagnostic[] {
  if (!before) return [];
  const judged = outcome ?? judgeOutcome(before, after, committed, applied);
  // A shared ACL is told once the topics are safe: an undeclared move, refused above, drops ACLs too.
  const changed = judged.refused.length > 0 ? undefined : changedTopologies(before, after);
  const problems: Diagnostic[] = changed ? [...sharedAclsDropped(before, after, changed), ...heldAclsDeclared(after, changed)] : [...judged.refused];
  for (const { before: was, after: now } of consumerPairs(before, after)) {
    if (was && now) problems.push(...orderingSwitch(was, now));
  }
  return problems;
}

/** Unordered and park-by-key read the tiers in different groups; the new one would start over. */
function orderingSwitch(was: ConsumerModel, now: ConsumerModel): Diagnostic[] {
  // A renamed group is no switch of ordering: the plan tells how to carry its offsets over.
  // Park-by-key, on one side of every switch of group, always has tiers to start over.
  if (was.ordering === now.ordering || was.groups.retry === now.groups.retry) return [];
  if (now.previousOrdering === was.ordering) return [];
  return [
    specError(
      now.source.file,
      `${now.source.path}.ordering`,
      `switching ordering from '${was.ordering}' to '${now.ordering}' moves the tiers from group '${was.groups.retry}' to group '${now.groups.retry}', which would start from the beginning and run every retained tier record again; stop the consumers, wait until the tiers are drained (or commit '${now.groups.retry}' at the offsets of '${was.groups.retry}'), then set previousOrdering: '${was.ordering}' to confirm (see docs/changing-topologies.md)`,
    ),
  ];
}
