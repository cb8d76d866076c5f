import { formatDuration } from '../duration';
import type { TopicOwner } from './outcome';
import type { TopicResource } from './stack-resources';
import type { PlannedChange } from './types';

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** `-1` keeps records forever. */
const retention = (value: string | undefined) => (value === undefined ? undefined : Number(value) < 0 ? Infinity : Number(value));
const shown = (ms: number) => (ms === Infinity ? 'forever' : formatDuration(ms));

/**
 * The config changes the provider applies in place to a topic both sides keep, with
 * what each does to the records already in it. Risks come from the values Terraform
 * would set; the owner only says what kind of topic it is.
 */
export function configChanges(old: TopicResource, current: TopicResource, owner: TopicOwner | undefined): PlannedChange[] {
  const changes: PlannedChange[] = [];
  const name = current.name;
  const [wasPolicy, policy] = [old.config['cleanup.policy'] ?? 'delete', current.config['cleanup.policy'] ?? 'delete'];
  if (!wasPolicy.includes('compact') && policy.includes('compact')) {
    changes.push({ risk: 'destructive', text: `'${name}' switches cleanup.policy from '${wasPolicy}' to '${policy}': compaction deletes every record that a later record with the same key supersedes, and a null value deletes its key` });
  } else if (wasPolicy !== policy) {
    changes.push({ risk: 'safe', text: `'${name}' switches cleanup.policy from '${wasPolicy}' to '${policy}'` });
  }
  changes.push(...retentionChange(name, retention(old.config['retention.ms']), retention(current.config['retention.ms']), owner));
  const minIsr = Number(current.config['min.insync.replicas']);
  if (minIsr > current.replicationFactor && !(Number(old.config['min.insync.replicas']) > old.replicationFactor)) {
    changes.push({ risk: 'destructive', text: `'${name}' would need ${minIsr} in-sync replicas of ${current.replicationFactor}: every publish with acks=-1 fails, so retries, dead letters and replays stop` });
  }
  for (const key of [...new Set([...Object.keys(old.config), ...Object.keys(current.config)])].sort()) {
    if (['cleanup.policy', 'retention.ms', 'min.insync.replicas'].includes(key) || old.config[key] === current.config[key]) continue;
    changes.push({ risk: 'safe', text: `'${name}' config ${key}: ${old.config[key] ?? '(default)'} -> ${current.config[key] ?? '(default)'}` });
  }
  return changes;
}

function retentionChange(name: string, before: number | undefined, after: number | undefined, owner: TopicOwner | undefined): PlannedChange[] {
  if (before === after || after === undefined) return [];
  if (before === undefined || after > before) return [{ risk: 'safe', text: `'${name}' keeps records ${shown(after)}${before === undefined ? '' : ` instead of ${shown(before)}`}` }];
  const lost = `'${name}' keeps records ${shown(after)} instead of ${shown(before)}: records older than ${shown(after)} are deleted at once`;
  const kind = owner?.topic.kind;
  if (kind === 'dlq' || kind === 'dlq-audit') {
    return after < WEEK_MS
      ? [{ risk: 'destructive', text: `${lost}, and less than a week turns the ${kind === 'dlq' ? 'DLQ' : 'DLQ audit log'} into delayed data loss` }]
      : [{ risk: 'needs-migration', text: `${lost}; replay or discard those first (krt dlq inspect ${owner!.consumer.name})` }];
  }
  if (kind === 'retry') {
    const c = owner!.consumer;
    const longest = Math.max(...[...c.tiers, ...c.drainingTiers].map((t) => t.delayMs));
    if (after < longest) return [{ risk: 'destructive', text: `${lost}, less than the longest tier delay (${formatDuration(longest)}): records are deleted before they are due` }];
    return [{ risk: 'safe', text: lost }];
  }
  return [{ risk: 'needs-migration', text: `${lost}; make sure every group that reads it is past them` }];
}
