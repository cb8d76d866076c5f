import { formatDuration } from '../duration';
import type { ConsumerModel, ProjectModel, RetryTierModel } from '../model/types';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { consumerPairs, keptTopics, tiersByTopic } from './pairs';

/**
 * Edits that would destroy records in flight, refused by `krt synth` and `krt plan`
 * until the spec says how to make them safely. `before` is the committed model snapshot.
 */
export function guardChanges(before: ProjectModel | undefined, after: ProjectModel): Diagnostic[] {
  if (!before) return [];
  const problems: Diagnostic[] = [];
  for (const { before: was, after: now } of consumerPairs(before, after)) {
    if (!was) continue;
    if (!now) {
      if (!was.decommissioned) problems.push(removedWithoutAcknowledgement(was));
      continue;
    }
    problems.push(...retiredWithoutDraining(was, now), ...partitionDecreases(was, now), ...deadLetterRenames(was, now), ...orderingSwitch(was, now));
  }
  return problems;
}

function removedWithoutAcknowledgement(c: ConsumerModel): Diagnostic {
  return specError(
    c.source.file,
    'consumers',
    `consumer '${c.name}' was removed, which would delete its DLQ '${c.dlq.name}' with every unhandled record, its audit log and its retry tiers; put it back with decommissioned: true, synth and deploy that, replay or discard its DLQ (krt dlq inspect ${c.name}) and let its tiers drain, then remove it`,
  );
}

function retiredWithoutDraining(was: ConsumerModel, now: ConsumerModel): Diagnostic[] {
  const kept = tiersByTopic(now);
  return was.tiers
    .filter((tier) => !kept.has(tier.name))
    .map((tier) =>
      specError(
        now.source.file,
        `${now.source.path}.ladder`,
        `tier ${tier.label} left the ladder, which would delete '${tier.name}' with every record waiting in it; add it to the retired tiers (retired: [${retiredEntry(tier, now)}]) so it drains into the live tiers, and remove it once \`krt plan --live\` reports it empty`,
      ),
    );
}

/** The retired entry that keeps the tier's topic exactly as it is. */
function retiredEntry(tier: RetryTierModel, now: ConsumerModel): string {
  const partitions = tier.partitions !== now.mainTopic.partitions ? `, partitions: ${tier.partitions}` : '';
  const retention = tier.retentionMs !== 7 * 24 * 3600 * 1000 ? `, retention: '${formatDuration(tier.retentionMs)}'` : '';
  return partitions || retention ? `{ delay: '${tier.label}'${partitions}${retention} }` : `'${tier.label}'`;
}

function partitionDecreases(was: ConsumerModel, now: ConsumerModel): Diagnostic[] {
  const previous = new Map(keptTopics(was).map((t) => [t.name, t.partitions]));
  return keptTopics(now).flatMap((topic) => {
    const old = previous.get(topic.name);
    if (old === undefined || topic.partitions >= old) return [];
    const where = topic.kind === 'main' ? `${now.source.path}.topic.partitions` : topic.kind === 'dlq' || topic.kind === 'dlq-audit' ? `${now.source.path}.dlq.partitions` : `${topic.source.path}.partitions`;
    return [
      specError(now.source.file, where, `'${topic.name}' would shrink from ${old} to ${topic.partitions} partitions; Kafka cannot remove partitions, so the Terraform provider would delete and recreate the topic, losing its records; keep ${old} (or more)`),
    ];
  });
}

function deadLetterRenames(was: ConsumerModel, now: ConsumerModel): Diagnostic[] {
  return (
    [
      [was.dlq.name, now.dlq.name, 'DLQ'],
      [was.dlqAudit.name, now.dlqAudit.name, 'DLQ audit log'],
    ] as const
  )
    .filter(([old, current]) => old !== current)
    .map(([old, current, what]) =>
      specError(now.source.file, `${now.source.path}.retryTopicBase`, `the ${what} would be renamed from '${old}' to '${current}' (retryTopicBase or naming changed), which deletes '${old}' with its records; keep the old names, or add a new consumer beside this one and decommission this one`),
    );
}

/** Unordered and park-by-key read the tiers in different groups; the new one would start over. */
function orderingSwitch(was: ConsumerModel, now: ConsumerModel): Diagnostic[] {
  if (was.groups.retry === now.groups.retry || (was.tiers.length === 0 && now.tiers.length === 0)) return [];
  if (now.previousOrdering === was.ordering) return [];
  return [
    specError(
      now.source.file,
      `${now.source.path}.ordering`,
      `switching ordering from '${was.ordering}' to '${now.ordering}' moves the tiers from group '${was.groups.retry}' to group '${now.groups.retry}', which would start from the beginning and run every retained tier record again; stop the consumers, wait until the tiers are drained (or commit '${now.groups.retry}' at the offsets of '${was.groups.retry}'), then set previousOrdering: '${was.ordering}' to confirm (see docs/changing-topologies.md)`,
    ),
  ];
}
