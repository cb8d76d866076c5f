import { formatDuration } from '../duration';
import type { TopicOwner } from './topic-owner';
import type { TopicResource } from './stack-resources';
import type { PlannedChange } from './types';

const WEEK_MS = 7 * 24 * 3600 * 1000;

/**
 * The broker's defaults for the configs that decide how long records stay. The provider
 * sets a topic's configs to exactly the map in its block, so a key that leaves the map
 * falls back to these: a change is judged on the EFFECTIVE value, never on the key.
 */
export const BROKER_DEFAULTS: Readonly<Record<string, string>> = {
  'cleanup.policy': 'delete',
  'retention.ms': String(WEEK_MS),
  'retention.bytes': '-1',
  'delete.retention.ms': String(24 * 3600 * 1000),
  'min.compaction.lag.ms': '0',
  'max.compaction.lag.ms': String(Number.MAX_SAFE_INTEGER),
  'segment.ms': String(WEEK_MS),
};

/** A config as the broker applies it: the block's map over the broker defaults. */
export const effective = (config: Readonly<Record<string, string>>, key: string): string | undefined => config[key] ?? BROKER_DEFAULTS[key];

/** `-1` (or any negative) means no limit. */
const limit = (value: string | undefined) => (value === undefined ? undefined : Number(value) < 0 ? Infinity : Number(value));
const shown = (ms: number) => (ms === Infinity ? 'forever' : formatDuration(ms));
const bytes = (n: number) => (n === Infinity ? 'no size limit' : `${n} bytes`);
const policies = (value: string | undefined) => new Set((value ?? 'delete').split(',').map((p) => p.trim()));

/**
 * The config changes the provider applies in place to a topic both sides keep, with
 * what each does to the records already in it. Risks come from the values the broker
 * would apply (defaults included); the owner only says what kind of topic it is.
 */
export function configChanges(old: TopicResource, current: TopicResource, owner: TopicOwner | undefined): PlannedChange[] {
  const changes: PlannedChange[] = [];
  const name = current.name;
  const value = (config: Readonly<Record<string, string>>, key: string) => effective(config, key);
  const [wasPolicy, policy] = [value(old.config, 'cleanup.policy')!, value(current.config, 'cleanup.policy')!];
  const [was, now] = [policies(wasPolicy), policies(policy)];
  if (!was.has('compact') && now.has('compact')) {
    changes.push({ risk: 'destructive', text: `'${name}' switches cleanup.policy from '${wasPolicy}' to '${policy}': compaction deletes every record that a later record with the same key supersedes, and a null value deletes its key` });
  } else if (!was.has('delete') && now.has('delete')) {
    // A compacted topic keeps its records however old; under delete, age and size limits apply at once.
    changes.push({
      risk: 'destructive',
      text: `'${name}' switches cleanup.policy from '${wasPolicy}' to '${policy}': every record older than ${shown(limit(value(current.config, 'retention.ms'))!)} (retention.ms) is deleted at once, which compaction had kept`,
    });
  } else if (wasPolicy !== policy) {
    changes.push({ risk: 'safe', text: `'${name}' switches cleanup.policy from '${wasPolicy}' to '${policy}'` });
  }
  // Retention only deletes under the delete policy; a compacted topic's records are judged above.
  if (now.has('delete')) {
    changes.push(...retentionChange(name, limit(value(old.config, 'retention.ms')), limit(value(current.config, 'retention.ms')), owner));
    const [wasBytes, nowBytes] = [limit(value(old.config, 'retention.bytes'))!, limit(value(current.config, 'retention.bytes'))!];
    if (nowBytes < wasBytes) {
      changes.push({ risk: 'destructive', text: `'${name}' keeps at most ${bytes(nowBytes)} per partition instead of ${bytes(wasBytes)} (retention.bytes): the oldest segments beyond it are deleted at once, whatever their age` });
    } else if (nowBytes > wasBytes) changes.push({ risk: 'safe', text: `'${name}' keeps up to ${bytes(nowBytes)} per partition instead of ${bytes(wasBytes)}` });
  }
  const tiered = tieredStorageChange(old, current);
  const dropped = clusterDefaults(old, current);
  changes.push(...tiered, ...dropped.map((d) => d.change));
  const told = new Set(['cleanup.policy', 'retention.ms', 'retention.bytes', 'min.insync.replicas', ...dropped.map((d) => d.key), ...(tiered.length > 0 ? ['remote.storage.enable'] : [])]);
  const minIsr = Number(current.config['min.insync.replicas']);
  if (minIsr > current.replicationFactor && !(Number(old.config['min.insync.replicas']) > old.replicationFactor)) {
    changes.push({ risk: 'destructive', text: `'${name}' would need ${minIsr} in-sync replicas of ${current.replicationFactor}: every publish with acks=-1 fails, so retries, dead letters and replays stop` });
  }
  for (const key of [...new Set([...Object.keys(old.config), ...Object.keys(current.config)])].sort()) {
    if (told.has(key) || old.config[key] === current.config[key]) continue;
    changes.push({ risk: 'safe', text: `'${name}' config ${key}: ${old.config[key] ?? '(default)'} -> ${current.config[key] ?? '(default)'}` });
  }
  return changes;
}

/** The configs that decide which records a topic keeps: one that leaves the map is never silent. */
const RECORD_KEEPING: ReadonlySet<string> = new Set([
  'cleanup.policy',
  'retention.ms',
  'retention.bytes',
  'delete.retention.ms',
  'min.compaction.lag.ms',
  'max.compaction.lag.ms',
  'local.retention.ms',
  'local.retention.bytes',
  'remote.storage.enable',
  'remote.log.delete.on.disable',
  'remote.log.copy.disable',
]);

const on = (config: Readonly<Record<string, string>>, key: string) => config[key]?.trim().toLowerCase() === 'true';

/**
 * Tiered storage turned off (KIP-950): the broker accepts it only with
 * remote.log.delete.on.disable=true, which deletes every remote segment, so every record
 * older than the local retention is gone.
 */
function tieredStorageChange(old: TopicResource, current: TopicResource): PlannedChange[] {
  if (!on(old.config, 'remote.storage.enable') || on(current.config, 'remote.storage.enable')) return [];
  const name = current.name;
  const local = current.config['local.retention.ms'] ?? old.config['local.retention.ms'];
  const kept = local === undefined ? 'the local retention (local.retention.ms)' : `${shown(limit(local)!)} (local.retention.ms)`;
  if (on(current.config, 'remote.log.delete.on.disable')) {
    return [{ risk: 'destructive', text: `'${name}' turns tiered storage off (remote.storage.enable: true -> false) with remote.log.delete.on.disable: every remote segment is deleted, so every record older than ${kept} is lost` }];
  }
  return [{ risk: 'needs-migration', text: `'${name}' turns tiered storage off (remote.storage.enable: true -> false): the broker refuses it without remote.log.delete.on.disable=true, which deletes every record older than ${kept}; copy or replay what must stay first` }];
}

/**
 * A key that decides which records stay and leaves the block's map: the provider removes
 * it from the topic, and the CLUSTER's default (log.retention.ms, log.cleanup.policy, ...)
 * applies, which krt cannot see offline and which is not always Kafka's shipped default.
 */
function clusterDefaults(old: TopicResource, current: TopicResource): { key: string; change: PlannedChange }[] {
  return [...RECORD_KEEPING]
    .filter((key) => old.config[key] !== undefined && current.config[key] === undefined)
    .map((key) => ({
      key,
      change: {
        risk: 'needs-migration',
        text: `'${current.name}' drops its explicit ${key} (${old.config[key]}): the cluster's default for it applies, which krt cannot see offline (Kafka ships ${BROKER_DEFAULTS[key] ?? 'none'}); check the broker's setting (kafka-configs --describe --entity-type brokers --all) before applying, or keep ${key} in the spec`,
      },
    }));
}

function retentionChange(name: string, before: number | undefined, after: number | undefined, owner: TopicOwner | undefined): PlannedChange[] {
  if (before === after || after === undefined) return [];
  if (before === undefined || after > before) return [{ risk: 'safe', text: `'${name}' keeps records ${shown(after)}${before === undefined ? '' : ` instead of ${shown(before)}`}` }];
  const lost = `'${name}' keeps records ${shown(after)} (retention.ms) instead of ${shown(before)}: records older than ${shown(after)} are deleted at once`;
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
