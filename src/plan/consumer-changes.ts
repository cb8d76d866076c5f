import { formatDuration } from '../duration';
import type { ConsumerModel, RetryTierModel, TopicModel } from '../model/types';
import type { ConsumerPair } from './pairs';
import { keptTopics, tiersByTopic } from './pairs';
import type { PlannedChange } from './types';
import { grownUnderParking } from './key-partitions';

const change = (risk: PlannedChange['risk'], text: string): PlannedChange => ({ risk, text });

/** What an edit of one consumer means for the records in flight, in operator words. */
export function consumerChanges({ before: was, after: now }: ConsumerPair, existing: ReadonlySet<string> = new Set()): PlannedChange[] {
  if (!was && now) {
    // A renamed consumer (or one that takes over another's topics) finds them in place.
    const [kept, created] = [keptTopics(now).filter((t) => existing.has(t.name)), keptTopics(now).filter((t) => !existing.has(t.name))];
    const parts = [created.length > 0 ? `creates ${topicList(created)}` : '', kept.length > 0 ? `keeps ${topicList(kept)}, which exist already` : ''].filter(Boolean);
    return [change('safe', `new consumer: ${parts.join(', ')}${kept.length > 0 ? ',' : ''} and the ACLs of ${now.principal}`)];
  }
  // What leaves the stacks (and whether that is allowed) is the outcome's to tell.
  if (!was || !now) return [];
  return [
    ...renaming(was, now, existing),
    ...decommissioning(was, now),
    ...tierChanges(was, now, existing),
    ...topicChanges(was, now),
    ...groupChanges(was, now),
    ...alertChanges(was, now),
    ...routingChanges(was, now),
  ];
}

/** A consumer paired with another name by the DLQ it keeps: its groups are judged below. */
function renaming(was: ConsumerModel, now: ConsumerModel, existing: ReadonlySet<string>): PlannedChange[] {
  if (was.name === now.name) return [];
  const kept = keptTopics(now).filter((t) => existing.has(t.name));
  return [change('safe', `renamed from '${was.name}': keeps ${topicList(kept)}, which exist already`)];
}

function decommissioning(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  if (was.decommissioned === now.decommissioned) return [];
  if (now.decommissioned) {
    return [change('safe', `marked decommissioned: nothing is deleted yet; replay or discard its DLQ (krt dlq inspect ${now.name}) and let its tiers drain, then remove the consumer from the spec`)];
  }
  return [change('safe', 'no longer decommissioned')];
}

function tierChanges(was: ConsumerModel, now: ConsumerModel, existing: ReadonlySet<string>): PlannedChange[] {
  const old = tiersByTopic(was);
  const changes: PlannedChange[] = [];
  for (const tier of now.tiers) {
    const previous = old.get(tier.name);
    if (!previous) {
      const replaced = was.tiers.find((t) => t.index === tier.index && !now.tiers.some((n) => n.name === t.name));
      const topic = existing.has(tier.name) ? `keeps '${tier.name}', which exists already` : `creates '${tier.name}'`;
      if (replaced?.delayMs === tier.delayMs) {
        // The same delay under another topic name (retryTopicBase, naming): a new topic is the
        // outcome's to tell, with the old one's deletion; one that exists is taken over.
        if (existing.has(tier.name)) changes.push(change('safe', `tier ${tier.index} (${tier.label}) moves from '${replaced.name}' to '${tier.name}': ${topic}`));
        continue;
      }
      changes.push(change('safe', replaced ? `tier ${tier.index} retimed from ${formatDuration(replaced.delayMs)} to ${formatDuration(tier.delayMs)}: ${topic}` : `tier ${tier.label} added as tier ${tier.index} of ${now.tiers.length}: ${topic}`));
    } else if (previous.draining) {
      changes.push(change('safe', `tier ${tier.label} back in the ladder as tier ${tier.index}: no longer draining`));
    } else if (previous.index !== tier.index) {
      changes.push(change('safe', `tier ${tier.label} moves from place ${previous.index} to ${tier.index}: records already in it go on from their new place`));
    }
  }
  for (const tier of now.drainingTiers) {
    const previous = old.get(tier.name);
    if (previous && !previous.draining) {
      changes.push(
        change('needs-migration', `tier ${tier.label} retired: '${tier.name}' is kept and still consumed, and each record in it goes on to the live tier its x-attempt reaches; remove it from retired once \`krt plan --live\` reports it empty`),
      );
    } else if (!previous) {
      changes.push(change('safe', `retired tier ${tier.label} declared: keeps or creates '${tier.name}' and drains it`));
    }
  }
  return changes;
}

/**
 * The main topic when this topology does not manage it: nothing changes in Terraform
 * (the outcome tells what happens to the tiers and the DLQ that follow its partitions).
 */
function topicChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  const [old, current] = [was.mainTopic, now.mainTopic];
  if (current.managed || old.name !== current.name || old.partitions === current.partitions) return [];
  if (current.partitions > old.partitions && now.ordering === 'park-by-key') return [change('needs-migration', grownUnderParking(old, current, [now]))];
  return [
    change('safe', current.partitions > old.partitions
      ? `main topic '${current.name}' now has ${current.partitions} partitions (was ${old.partitions}); its producers' team grows it, the tiers and DLQ follow here`
      : `main topic '${current.name}' now says ${current.partitions} partitions (was ${old.partitions}); krt does not manage it, so nothing changes in Terraform for it`),
  ];
}

function groupChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  const roles = [
    ['main', 'reads the main topic'],
    ['retry', 'reads the tiers'],
    ['replay', 'tracks the DLQ backlog'],
  ] as const;
  return roles.flatMap(([role, what]) => {
    const [old, current] = [was.groups[role], now.groups[role]];
    if (old === current) return [];
    return [
      change('needs-migration', `the group that ${what} changes from '${old}' to '${current}': the new group has no offsets and starts from the beginning; before deploying, commit '${current}' at the offsets of '${old}' (kafka-consumer-groups --reset-offsets --to-offset, per partition)`),
    ];
  });
}

function alertChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  return Object.entries(now.alerts).flatMap(([key, policy]) => {
    const old = was.alerts[key as keyof ConsumerModel['alerts']];
    if (!old) return [];
    const parts = [
      old.threshold !== policy.threshold ? `threshold ${old.threshold} -> ${policy.threshold}` : '',
      old.forMs !== policy.forMs ? `for ${formatDuration(old.forMs)} -> ${formatDuration(policy.forMs)}` : '',
      old.severity !== policy.severity ? `severity ${old.severity} -> ${policy.severity}` : '',
    ].filter(Boolean);
    return parts.length > 0 ? [change('safe', `alert ${key}: ${parts.join(', ')}`)] : [];
  });
}

function routingChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  const changes: PlannedChange[] = [];
  if (was.ordering !== now.ordering) changes.push(change('needs-migration', `ordering '${was.ordering}' -> '${now.ordering}': deploy the services with the new router package while the old ones are stopped`));
  if (JSON.stringify(was.inPlace) !== JSON.stringify(now.inPlace)) changes.push(change('safe', 'in-place retry policy changes: redeploy the services with the new router package'));
  if (JSON.stringify(was.errorPolicy) !== JSON.stringify(now.errorPolicy)) changes.push(change('safe', 'error policy changes: redeploy the services with the new router package'));
  if (was.headerStyle !== now.headerStyle) changes.push(change('safe', `DLQ headers '${was.headerStyle}' -> '${now.headerStyle}'`));
  return changes;
}

function topicList(topics: readonly (TopicModel | RetryTierModel)[]): string {
  return topics.map((t) => `'${t.name}'`).join(', ');
}
