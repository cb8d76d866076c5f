import { formatDuration } from '../duration';
import type { ConsumerModel, RetryTierModel } from '../model/types';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { renamedTier } from './renamed-tier';
import { role } from './topic-owner';
import type { TopicOwner } from './topic-owner';
import type { TopicResource } from './stack-resources';

/**
 * What `krt synth` says when the outcome guard refuses: what the apply would do to the
 * records, and the spec change that makes it safe. The judgment is the outcome guard's;
 * the owner of the topic only chooses the words and the spec path.
 */
export const refusal = {
  replaced(old: TopicResource, current: TopicResource, owner: TopicOwner | undefined): Diagnostic {
    if (current.name !== old.name) {
      return at(owner, 'topic', `'${old.name}' would be renamed to '${current.name}' at the same Terraform address, which the provider does by deleting the topic with its records and creating a new one; keep the name '${old.name}'`);
    }
    const where = owner?.topic.kind === 'main' ? 'topic.partitions' : owner?.topic.kind === 'dlq' || owner?.topic.kind === 'dlq-audit' ? 'dlq.partitions' : undefined;
    const path = owner?.topic.kind === 'retry' ? `${owner.topic.source.path}.partitions` : undefined;
    return at(owner, where ?? '', `'${old.name}' would shrink from ${old.partitions} to ${current.partitions} partitions; Kafka cannot remove partitions, so the Terraform provider would delete and recreate the topic, losing its records; keep ${old.partitions} (or more)`, path);
  },

  deleted(old: TopicResource, owner: TopicOwner | undefined, now: ConsumerModel | undefined, elsewhere: string | undefined, heir?: TopicOwner): Diagnostic {
    if (!owner) return specError('topologies', '', `stack '${old.stack}' would delete '${old.name}' with every record in it; put back what named it`);
    const was = owner.consumer;
    // A main topic whose management passes to another consumer's stack: both sides declare it, nobody moved.
    if (owner.topic.kind === 'main' && elsewhere !== undefined && heir && heir.consumer.name !== was.name && heir.topic.kind === 'main') {
      return specError(
        heir.consumer.source.file,
        `${heir.consumer.source.path}.topic.previouslyManaged`,
        `main topic '${old.name}' passes from stack '${old.stack}' (consumer '${was.name}') to stack '${elsewhere}' (consumer '${heir.consumer.name}'), so '${old.stack}' would delete it with every record and '${elsewhere}' would create it empty; declare the hand-over on both sides: previouslyManaged: true beside managed: false on consumer '${was.name}' ('${old.stack}' forgets it) and previouslyManaged: false beside managed: true on consumer '${heir.consumer.name}' ('${elsewhere}' imports it)`,
      );
    }
    if (now && (elsewhere !== undefined || now.topology !== was.topology)) {
      const to = elsewhere ?? now.topology;
      return specError(
        now.source.file,
        now.source.path,
        `consumer '${now.name}' moved from topology '${old.stack}' to '${to}', so stack '${old.stack}' would delete its topics (DLQ '${was.dlq.name}', its audit log, its tiers) with every record and stack '${to}' would create them empty; set previousTopology: '${old.stack}' on the consumer (or previousName: '${old.stack}' on topology '${to}' if it was renamed): '${to}' then imports the topics and '${old.stack}' forgets them`,
      );
    }
    if (!now && owner.topic.kind === 'main') {
      // Another consumer still reads the topic this one managed (else it would go with a decommissioned consumer): only a hand-over keeps it.
      const reader = heir ? ` consumer '${heir.consumer.name}' still reads it, so` : '';
      const first = was.decommissioned ? '' : 'decommission it (decommissioned: true) and let its DLQ and tiers drain, and ';
      return specError(
        was.source.file,
        'consumers',
        `consumer '${was.name}' was removed, and it managed its main topic '${old.name}':${reader} stack '${old.stack}' would delete it with every record; put the consumer back, ${first}hand the topic over first: managed: false with previouslyManaged: true on '${was.name}' (the stack forgets the topic, removed with destroy = false, and it stays with its producers)${heir ? `, and if consumer '${heir.consumer.name}' should manage it, managed: true with previouslyManaged: false there (its stack imports it)` : ''}; synth and apply that, then remove the consumer, saying so: krt synth --applied ${old.stack}`,
      );
    }
    if (!now) {
      return specError(
        was.source.file,
        'consumers',
        `consumer '${was.name}' was removed, which would delete its DLQ '${was.dlq.name}' with every unhandled record, its audit log and its retry tiers; put it back with decommissioned: true, synth and deploy that, replay or discard its DLQ (krt dlq inspect ${was.name}) and let its tiers drain, then remove it`,
      );
    }
    const topic = owner.topic;
    switch (topic.kind) {
      case 'retry': {
        const renamed = renamedTier(topic, now);
        if (renamed) {
          return specError(now.source.file, `${now.source.path}.retryTopicBase`, `tier ${topic.label} would be renamed from '${topic.name}' to '${renamed.name}' (retryTopicBase or naming changed), which deletes '${topic.name}' with every record waiting in it; keep the old names, or add a new consumer beside this one and decommission this one`);
        }
        return specError(
          now.source.file,
          `${now.source.path}.ladder`,
          `tier ${topic.label} left the ladder, which would delete '${topic.name}' with every record waiting in it; add it to the retired tiers (retired: [${retiredEntry(topic, now)}]) so it drains into the live tiers, and remove it once \`krt plan --live\` reports it empty`,
        );
      }
      case 'dlq':
      case 'dlq-audit': {
        const [what, current] = topic.kind === 'dlq' ? ['DLQ', now.dlq.name] : ['DLQ audit log', now.dlqAudit.name];
        return specError(now.source.file, `${now.source.path}.retryTopicBase`, `the ${what} would be renamed from '${topic.name}' to '${current}' (retryTopicBase or naming changed), which deletes '${topic.name}' with its records; keep the old names, or add a new consumer beside this one and decommission this one`);
      }
      case 'main':
        return now.mainTopic.name === topic.name
          ? specError(now.source.file, `${now.source.path}.topic.managed`, `main topic '${topic.name}' is no longer managed here, so stack '${old.stack}' would delete it with every record; to hand it back to its producers, set previouslyManaged: true beside managed: false: the stack then forgets it (removed, destroy = false) and the topic stays`)
          : specError(now.source.file, `${now.source.path}.topic.name`, `the managed main topic changes from '${topic.name}' to '${now.mainTopic.name}', so stack '${old.stack}' would delete '${topic.name}' with every record; first hand '${topic.name}' over to its producers (managed: false, previouslyManaged: true) and apply, then switch topics`);
    }
  },

  readdressed(old: TopicResource, address: string): Diagnostic {
    return specError(
      'topologies',
      '',
      `stack '${old.stack}' would move '${old.name}' from ${old.address} to ${address}: Terraform deletes a resource whose address changes and creates the new one empty, so every record in it would be lost; put back the stack that holds it at ${old.address}, or move it in Terraform's state first (terraform state mv ${old.address} ${address})`,
    );
  },

  stillHeld(stack: string, kept: boolean, topics: readonly string[], owner: TopicOwner): Diagnostic {
    const c = owner.consumer;
    const since = kept ? 'kept (empty) since its topology file was deleted' : 'whose configuration no longer declares them since a synth deleted them';
    return specError(
      c.source.file,
      c.source.path,
      `consumer '${c.name}' declares ${topics.map((t) => `'${t}'`).join(', ')} again in stack '${c.topology}', but stack '${stack}', ${since}, may still hold them in its Terraform state: krt cannot tell offline whether it was applied, and if not, '${c.topology}' would fail to create them and applying '${stack}' would then delete them with every record; apply '${stack}' first, as committed (terraform apply in its folder, or cdktf deploy ${stack} without this edit), then run krt synth (or krt plan) again with --applied ${stack}`,
    );
  },

  changesHands(name: string, was: TopicOwner, now: TopicOwner): Diagnostic {
    return at(
      now,
      'retryTopicBase',
      `'${name}' would pass from ${role(was)} to ${role(now)} with every record in it: the new reader would handle records meant for another handler and replay dead letters that are not its own; keep each consumer's topic names (retryTopicBase), or give this one new names and decommission the old topics with their consumer`,
    );
  },

  /** An import of a topic the spec declared gone, which a stack's unapplied state may still hold: it may exist or not. */
  importsDeleted(current: TopicResource, owner: TopicOwner | undefined, heldBy: string, kept: boolean): Diagnostic {
    const where = kept ? `the kept stack '${heldBy}' of a deleted topology file` : `stack '${heldBy}'`;
    return at(
      owner,
      'previousTopology',
      `stack '${current.stack}' would import '${current.name}', which an earlier synth took out of ${where} (a consumer removed, a tier dropped, a topology file deleted): that stack may still hold it until it is applied, and krt cannot tell offline whether it was, so the import may fail on a topic that no longer exists; to keep its records, first declare the consumer again where it was (in '${heldBy}', decommissioned if need be), synth, and move it from there in a later change; or, once '${heldBy}' is applied (--applied ${heldBy}), declare it here without previousTopology and its topics are created empty`,
    );
  },

  importsMissing(current: TopicResource, owner: TopicOwner | undefined): Diagnostic {
    const adopting = owner?.topic.kind === 'main' && owner.consumer.mainTopic.previouslyManaged === false;
    return at(
      owner,
      adopting ? 'topic.previouslyManaged' : 'previousTopology',
      adopting
        ? `stack '${current.stack}' would import '${current.name}', which no spec named before, so the apply would fail on a topic that does not exist; drop previouslyManaged and the stack creates it`
        : `stack '${current.stack}' would import '${current.name}', which no stack held before, so the apply would fail on a topic that does not exist; apply the move alone first, then add the new topic in a later change`,
    );
  },

  createsExisting(current: TopicResource, owner: TopicOwner | undefined, existed: TopicOwner): Diagnostic {
    if (existed.topic.kind === 'main' && !existed.topic.managed && owner?.topic.kind === 'main') {
      return at(owner, 'topic.managed', `main topic '${current.name}' exists already and was not managed here, so stack '${current.stack}' would try to create it and the apply would fail; set previouslyManaged: false beside managed: true: the stack then imports it with its records`);
    }
    return at(owner, '', `'${current.name}' exists already (consumer '${existed.consumer.name}' names it), so stack '${current.stack}' would try to create it and the apply would fail; keep it where it was, or declare the move (previousTopology, previouslyManaged)`);
  },
};

function at(owner: TopicOwner | undefined, field: string, message: string, path?: string): Diagnostic {
  if (!owner) return specError('topologies', '', message);
  const c = owner.consumer;
  return specError(c.source.file, path ?? (field ? `${c.source.path}.${field}` : c.source.path), message);
}

/** The retired entry that keeps the tier's topic exactly as it is. */
function retiredEntry(tier: RetryTierModel, now: ConsumerModel): string {
  const partitions = tier.partitions !== now.mainTopic.partitions ? `, partitions: ${tier.partitions}` : '';
  const retention = tier.retentionMs !== 7 * 24 * 3600 * 1000 ? `, retention: '${formatDuration(tier.retentionMs)}'` : '';
  return partitions || retention ? `{ delay: '${tier.label}'${partitions}${retention} }` : `'${tier.label}'`;
}
