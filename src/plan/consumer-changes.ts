import { formatDuration } from '../duration';
import type { ConsumerModel, RetryTierModel, TopicModel } from '../model/types';
import type { ConsumerPair } from './pairs';
import { keptTopics, tiersByTopic } from './pairs';
import type { PlannedChange, Risk } from './types';

const change = (risk: Risk, text: string): PlannedChange => ({ risk, text });

/** What an edit of one consumer means for the records in flight, in operator words. */
export function consumerChanges({ before: was, after: now }: ConsumerPair): PlannedChange[] {
  if (!was && now) return [change('safe', `new consumer: creates ${topicList(keptTopics(now))} and the ACLs of ${now.principal}`)];
  if (was && !now) {
    return [
      change(
        'destructive',
        `consumer removed: deletes ${topicList(keptTopics(was))} and their ACLs; first make sure \`krt dlq inspect ${was.name}\` shows nothing left and \`krt plan --live\` reports its tiers empty`,
      ),
    ];
  }
  if (!was || !now) return [];
  return [
    ...decommissioning(was, now),
    ...tierChanges(was, now),
    ...topicChanges(was, now),
    ...groupChanges(was, now),
    ...alertChanges(was, now),
    ...routingChanges(was, now),
  ];
}

function decommissioning(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  if (was.decommissioned === now.decommissioned) return [];
  if (now.decommissioned) {
    return [change('safe', `marked decommissioned: nothing is deleted yet; replay or discard its DLQ (krt dlq inspect ${now.name}) and let its tiers drain, then remove the consumer from the spec`)];
  }
  return [change('safe', 'no longer decommissioned')];
}

function tierChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  const old = tiersByTopic(was);
  const current = tiersByTopic(now);
  const changes: PlannedChange[] = [];
  for (const tier of now.tiers) {
    const previous = old.get(tier.name);
    if (!previous) {
      const replaced = was.tiers.find((t) => t.index === tier.index && !now.tiers.some((n) => n.name === t.name));
      changes.push(
        change('safe', replaced
          ? `tier ${tier.index} retimed from ${replaced.label} to ${tier.label}: creates '${tier.name}'`
          : `tier ${tier.label} added as tier ${tier.index} of ${now.tiers.length}: creates '${tier.name}'`),
      );
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
  for (const [name, tier] of old) {
    if (current.has(name)) continue;
    changes.push(
      change('destructive', tier.draining
        ? `drained tier ${tier.label} dropped: deletes '${name}'; anything still in it is lost, so apply only after \`krt plan --live\` reported it empty`
        : `tier ${tier.label} removed without draining: deletes '${name}' with every record waiting in it (krt synth refuses this)`),
    );
  }
  return changes;
}

/** Partitions and retention of the topics both sides keep. */
function topicChanges(was: ConsumerModel, now: ConsumerModel): PlannedChange[] {
  const old = new Map(keptTopics(was).map((t) => [t.name, t]));
  if (!was.mainTopic.managed) old.set(was.mainTopic.name, was.mainTopic);
  const current = [...keptTopics(now), ...(now.mainTopic.managed ? [] : [now.mainTopic])];
  return current.flatMap((topic) => {
    const previous = old.get(topic.name);
    if (!previous) return [];
    return [...partitionChange(previous, topic), ...retentionChange(previous, topic)];
  });
}

function partitionChange(was: TopicModel, now: TopicModel): PlannedChange[] {
  if (was.partitions === now.partitions) return [];
  if (now.partitions < was.partitions) {
    return [change('destructive', `'${now.name}' shrinks from ${was.partitions} to ${now.partitions} partitions: Kafka cannot remove partitions, so the topic would be deleted and recreated (krt synth refuses this)`)];
  }
  if (now.kind === 'main' && !now.managed) {
    return [change('safe', `main topic '${now.name}' now has ${now.partitions} partitions (was ${was.partitions}); its producers' team grows it, the tiers and DLQ follow here`)];
  }
  return [change('safe', `'${now.name}' grows from ${was.partitions} to ${now.partitions} partitions: records already in it stay where they are`)];
}

function retentionChange(was: TopicModel, now: TopicModel): PlannedChange[] {
  const before = was.config['retention.ms'];
  const after = now.config['retention.ms'];
  if (before === after || before === undefined || after === undefined) return [];
  const [from, to] = [formatDuration(Number(before)), formatDuration(Number(after))];
  if (Number(after) > Number(before)) return [change('safe', `'${now.name}' keeps records ${to} instead of ${from}`)];
  const risk: Risk = now.kind === 'dlq' || now.kind === 'dlq-audit' ? 'destructive' : 'safe';
  return [change(risk, `'${now.name}' keeps records ${to} instead of ${from}: records older than ${to} are deleted at once`)];
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
