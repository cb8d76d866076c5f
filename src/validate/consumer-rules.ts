import { exports as resolveExports } from 'resolve.exports';
import type { Package } from 'resolve.exports';
import { formatDuration } from '../duration';
import { NO_PACKAGES, packageOf } from '../load/decoder-packages';
import type { InstalledPackages } from '../load/decoder-packages';
import { topicNameProblem } from '../naming';
import { MIN_DLQ_RETENTION_MS, MIN_TIER_RETENTION_GRACE_MS } from '../model/defaults';
import type { ConsumerModel, RetryTierModel, TopologyModel } from '../model/types';
import { specError, specWarning } from './diagnostic';
import type { Diagnostic } from './diagnostic';

/**
 * The longest the handler may wait in place for one record, all backoffs together.
 * In-place retry blocks the partition (R7 wants it short), and KafkaJS's default session
 * timeout is 30 s: a member that waits longer is evicted and its partitions move.
 */
const MAX_IN_PLACE_WAIT_MS = 30_000;

/**
 * The fields of a consumer whose spec did not parse (defaults stand in for them in the
 * model), keyed by the consumer's path; `naming` when its topology's naming style did not.
 */
export type UnparsedFieldsOf = (consumerPath: string) => ReadonlySet<string>;

/** Rules that relate the fields of one consumer, or of one topology, to each other. */
export function checkTopology(topology: TopologyModel, unparsedOf: UnparsedFieldsOf = () => new Set(), installed: InstalledPackages = NO_PACKAGES): Diagnostic[] {
  const file = topology.source.file;
  const problems: Diagnostic[] = [];
  const { replicationFactor, minInsyncReplicas } = topology.cluster;
  if (minInsyncReplicas > replicationFactor) {
    problems.push(
      specError(file, 'cluster.minInsyncReplicas', `min.insync.replicas ${minInsyncReplicas} is above the replication factor ${replicationFactor}, so no write could succeed with acks=-1; lower it to at most ${replicationFactor}`),
    );
  }
  for (const consumer of topology.consumers) problems.push(...checkConsumer(consumer, unparsedOf(consumer.source.path), installed));
  return problems;
}

/**
 * A rule that reads a field which did not parse would judge the default standing in for
 * it and report a knock-on error of the one already reported, so such rules are skipped.
 */
function checkConsumer(consumer: ConsumerModel, unparsed: ReadonlySet<string>, installed: InstalledPackages): Diagnostic[] {
  const { file, path } = consumer.source;
  const parsed = (...fields: string[]) => fields.every((field) => !unparsed.has(field));
  const at = (field: string) => `${path}.${field}`;
  const problems: Diagnostic[] = [];
  const error = (where: string, message: string) => problems.push(specError(file, where, message));
  const main = consumer.mainTopic;

  if (consumer.value?.kind === 'decode' && parsed('value')) {
    const refusal = requireRefusal(consumer.value.module, installed);
    if (refusal !== undefined) error(at('value'), refusal);
  }

  consumer.tiers.forEach((tier, i) => {
    const before = consumer.tiers[i - 1];
    if (before && tier.delayMs === before.delayMs) {
      error(tier.source.path, `tier ${tier.label} repeats the delay of the tier before it; each tier needs its own, longer delay, so remove one`);
    } else if (before && tier.delayMs < before.delayMs) {
      error(tier.source.path, `tier ${tier.label} is shorter than the tier before it (${before.label}); list the ladder's delays in strictly increasing order`);
    }
    problems.push(...tierTopicProblems(consumer, tier));
  });

  const live = new Map(consumer.tiers.map((t) => [t.delayMs, t]));
  consumer.drainingTiers.forEach((tier, i) => {
    if (live.has(tier.delayMs)) {
      error(tier.source.path, `tier ${tier.label} is both in the ladder and retired; a tier is either live or draining, so remove it from one list`);
    } else if (consumer.drainingTiers[i - 1]?.delayMs === tier.delayMs) {
      error(tier.source.path, `tier ${tier.label} is retired twice; list it once`);
    }
    problems.push(...tierTopicProblems(consumer, tier));
  });

  if (consumer.dlq.partitions < main.partitions) {
    error(`${consumer.dlq.source.path}.partitions`, `the DLQ has ${consumer.dlq.partitions} partitions, fewer than the ${main.partitions} of ${main.name}; give it at least ${main.partitions} so a replay lands on the record's partition (R4)`);
  }
  if (consumer.dlq.retentionMs < MIN_DLQ_RETENTION_MS) {
    error(`${consumer.dlq.source.path}.retention`, `a DLQ retention of ${formatDuration(consumer.dlq.retentionMs)} deletes dead letters before anyone can look at them; set it to at least 7d (R5), 28d is usual`);
  }

  for (const topic of parsed('topic', 'retryTopicBase', 'naming') ? [...consumer.tiers, ...consumer.drainingTiers, consumer.dlq, consumer.dlqAudit] : []) {
    const problem = topicNameProblem(topic.name);
    if (problem) error(at(consumer.retryTopicBase === main.name ? 'topic.name' : 'retryTopicBase'), `the generated topic name is illegal: ${problem} (set a shorter retryTopicBase)`);
  }

  if (consumer.dlqAudit.retentionMs < consumer.dlq.retentionMs) {
    error(`${consumer.dlq.source.path}.auditRetention`, `the audit log keeps records ${formatDuration(consumer.dlqAudit.retentionMs)}, less than the DLQ's ${formatDuration(consumer.dlq.retentionMs)}, so the record of who replayed or discarded a dead letter would vanish before the dead letter itself (R17); set auditRetention to at least ${formatDuration(consumer.dlq.retentionMs)}`);
  }
  if (!main.managed && Object.keys(main.config).length > 0) {
    problems.push(specWarning(file, at('topic.config'), `topic.config is applied only to a topic created here, but ${main.name} is not managed here, so it is ignored; set it where the topic is created, or set topic.managed: true`));
  }
  if (parsed('ordering', 'ladder') && consumer.ordering === 'park-by-key' && consumer.tiers.length === 0) {
    error(at('ladder'), `ordering 'park-by-key' parks a key while its record waits in a retry tier, but the ladder is empty; add tiers, e.g. ladder: ['1m', '10m', '1h'], or choose ordering 'in-place-only'`);
  }
  if (parsed('ordering', 'ladder') && consumer.ordering === 'in-place-only' && consumer.tiers.length > 0) {
    error(at('ladder'), `ordering 'in-place-only' never uses retry tiers, yet the ladder has ${consumer.tiers.length}; remove the ladder or choose ordering 'unordered' or 'park-by-key'`);
  }
  if (parsed('errors', 'ladder') && consumer.errorPolicy.ambiguousTiers > consumer.tiers.length) {
    error(at('errors.ambiguousTiers'), `ambiguous errors get ${consumer.errorPolicy.ambiguousTiers} tiers but the ladder has only ${consumer.tiers.length}; lower ambiguousTiers to at most ${consumer.tiers.length}`);
  }
  const permanent = new Set(consumer.errorPolicy.permanent);
  for (const name of consumer.errorPolicy.ambiguous.filter((n) => permanent.has(n))) {
    error(at('errors.ambiguous'), `'${name}' is listed both as permanent and as ambiguous; keep it in one list`);
  }
  if (consumer.inPlace.backoffMs > consumer.inPlace.maxBackoffMs) {
    error(at('inPlace.backoff'), `the first backoff ${formatDuration(consumer.inPlace.backoffMs)} is longer than its cap ${formatDuration(consumer.inPlace.maxBackoffMs)}; raise maxBackoff or lower backoff`);
  }
  const worstWait = inPlaceWaitMs(consumer.inPlace);
  if (consumer.inPlace.maxBackoffMs > MAX_IN_PLACE_WAIT_MS) {
    error(at('inPlace.maxBackoff'), `a maxBackoff of ${formatDuration(consumer.inPlace.maxBackoffMs)} lets one in-place wait block the partition that long; in-place backoff must stay short (R7) and within the consumer's ${formatDuration(MAX_IN_PLACE_WAIT_MS)} session timeout, so set maxBackoff to at most '${formatDuration(MAX_IN_PLACE_WAIT_MS)}' and leave longer waits to the ladder`);
  } else if (worstWait > MAX_IN_PLACE_WAIT_MS) {
    error(at('inPlace.maxBackoff'), `with ${consumer.inPlace.attempts} attempts and a maxBackoff of ${formatDuration(consumer.inPlace.maxBackoffMs)}, one record could block its partition for ${formatDuration(worstWait)} in all; in-place backoff must stay short (R7) and within the consumer's ${formatDuration(MAX_IN_PLACE_WAIT_MS)} session timeout, so ${shorterInPlace(consumer.inPlace)} and leave longer waits to the ladder`);
  }
  const { dlqBacklog, dlqNewMessages, dlqOldestMessageAge, retryRateSpike } = consumer.alerts;
  for (const [key, policy] of [['dlqNewMessages', dlqNewMessages], ['dlqBacklog', dlqBacklog]] as const) {
    if (policy.threshold < 1) {
      error(at(`alerts.${key}.threshold`), `this alert fires at or above its threshold of DLQ records, so ${policy.threshold} would fire with an empty DLQ, forever; use at least 1 (1 pages on the first record)`);
    }
  }
  if (dlqOldestMessageAge.threshold >= 1) {
    error(at('alerts.dlqOldestMessageAge.threshold'), `this threshold is a share of the DLQ retention and must be below 1 to fire before records are deleted; use e.g. 0.5`);
  }
  if (retryRateSpike.threshold > 1) {
    error(at('alerts.retryRateSpike.threshold'), `this threshold is a share of records sent to retry, between 0 and 1; use e.g. 0.1`);
  }
  return problems;
}

/** Partitions and retention of a live or draining tier's topic. */
function tierTopicProblems(consumer: ConsumerModel, tier: RetryTierModel): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const error = (where: string, message: string) => problems.push(specError(consumer.source.file, where, message));
  const main = consumer.mainTopic;
  if (consumer.ordering === 'park-by-key' && tier.partitions !== main.partitions) {
    error(`${tier.source.path}.partitions`, `tier ${tier.label} has ${tier.partitions} partitions but ${main.name} has ${main.partitions}; park-by-key needs them equal, so that one group member owns partition p of the main topic and of every tier (leave partitions out to take the main topic's)`);
  } else if (tier.partitions < main.partitions) {
    error(`${tier.source.path}.partitions`, `tier ${tier.label} has ${tier.partitions} partitions, fewer than the ${main.partitions} of ${main.name}; give it at least ${main.partitions} so a record keeps its partition (R4)`);
  }
  const minimum = tier.delayMs + MIN_TIER_RETENTION_GRACE_MS;
  if (tier.retentionMs < minimum) {
    error(`${tier.source.path}.retention`, `tier ${tier.label} keeps records ${formatDuration(tier.retentionMs)}, which would delete them before or soon after they are due; set its retention to at least ${formatDuration(minimum)} (the delay plus one day)`);
  }
  return problems;
}

/** All in-place waits of one record added up, before jitter shortens them. */
function inPlaceWaitMs({ attempts, backoffMs, maxBackoffMs }: ConsumerModel['inPlace']): number {
  let total = 0;
  for (let retry = 1; retry < attempts; retry++) total += Math.min(maxBackoffMs, backoffMs * 2 ** (retry - 1));
  return total;
}

/** The smallest change that brings the in-place waits within the limit: a lower cap, else fewer attempts. */
function shorterInPlace(policy: ConsumerModel['inPlace']): string {
  for (let cap = Math.floor(policy.maxBackoffMs / 1000) * 1000; cap >= policy.backoffMs && cap > 0; cap -= 1000) {
    if (inPlaceWaitMs({ ...policy, maxBackoffMs: cap }) <= MAX_IN_PLACE_WAIT_MS) return `lower maxBackoff to e.g. '${formatDuration(cap)}'`;
  }
  let attempts = policy.attempts;
  while (attempts > 1 && inPlaceWaitMs({ ...policy, attempts }) > MAX_IN_PLACE_WAIT_MS) attempts--;
  return `lower attempts to at most ${attempts}`;
}

/**
 * The router package is CommonJS and `require`s a decode function's package when its
 * consumer is created. A package installed beside the spec whose `exports` give `require`
 * nothing (an ES module exporting an `import` condition only) loads in the spec, which krt
 * reads through jiti, and type-checks in the service, but stops the service at start-up; so
 * it is refused here. A package not installed beside the spec is the service's business, and
 * an entry its exports do not name at all is let through (require fails then for another
 * reason, which this rule does not judge).
 *
 * `exports` is resolved by resolve.exports, as Node's `require` resolves it (the conditions
 * require, node, node-addons and default; subpath patterns, arrays, null targets). One
 * difference: where a matching condition's nested object matches nothing, Node tries the
 * entry's next condition and resolve.exports stops, so such a package is refused here though
 * Node would load it from a later condition (a rare shape).
 *
 * The rule reads no file: the loader read each package's manifest beside the spec
 * (`load/decoder-packages.ts`), and `installed` is what it found.
 */
function requireRefusal(specifier: string, installed: InstalledPackages): string | undefined {
  const { name, subpath } = packageOf(specifier);
  const manifest = installed.get(name);
  if (manifest === undefined || manifest === null || manifest.exports === undefined || manifest.exports === null) return undefined;
  if (requireFinds(name, manifest.exports, subpath)) return undefined;
  return `'${specifier}' cannot be loaded with require (its exports have no "require" or "default" condition), and the router package requires it when the consumer is created; give its exports a "default" condition (Node 20.19+ and 22.12+ require an ES module), or export the decode function from a package require can load`;
}

/**
 * Whether Node's `require` finds a file for this subpath of the package's exports: true too
 * when the exports do not name the subpath (not this rule's verdict) or cannot be read.
 */
function requireFinds(name: string, exportsField: unknown, subpath: string): boolean {
  try {
    return (resolveExports({ name, exports: exportsField as Package['exports'] }, subpath, { require: true, conditions: ['node-addons'] }) ?? []).length > 0;
  } catch (error) {
    // resolve.exports throws `Missing "<entry>" specifier` when no entry matches the subpath,
    // and `No known conditions for "<entry>" specifier` when one matches but gives require nothing.
    return !(error instanceof Error && error.message.startsWith('No known conditions'));
  }
}
