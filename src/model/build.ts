import { durationToMs, formatDuration } from '../duration';
import {
  defaultDriftPrincipal,
  defaultMonitorPrincipal,
  defaultReplayPrincipal,
  dlqAuditTopicName,
  dlqTopicName,
  monitorGroupName,
  replayGroupName,
  retryGroupName,
  retryTopicName,
} from '../naming';
import type { NamingStyle } from '../naming';
import type { ParsedConsumer, ParsedTopology } from '../spec/schema';
import { CRITICALITY_PRESETS } from './criticality';
import { CREATED_TOPIC_COMPRESSION, DEFAULTS } from './defaults';
import type { AlertPolicy, ConsumerModel, RetryTierModel, SpecLocation, TopologyModel } from './types';

type TierEntry = NonNullable<ParsedConsumer['ladder']>[number];

export interface ParsedConsumerAt {
  readonly spec: ParsedConsumer;
  readonly source: SpecLocation;
}

/** Normalizes one parsed topology into the model. Pure; assumes each field passed the schema. */
export function buildTopologyModel(
  topology: ParsedTopology,
  consumers: readonly ParsedConsumerAt[],
  file: string,
): TopologyModel {
  const naming: NamingStyle = topology.naming ?? DEFAULTS.naming;
  return {
    name: topology.name,
    source: { file, path: '' },
    owner: { team: topology.owner.team, onCall: topology.owner.onCall },
    runbookBaseUrl: topology.runbookBaseUrl.replace(/\/+$/, ''),
    cluster: {
      replicationFactor: topology.cluster?.replicationFactor ?? DEFAULTS.replicationFactor,
      minInsyncReplicas: topology.cluster?.minInsyncReplicas ?? DEFAULTS.minInsyncReplicas,
    },
    naming,
    principals: {
      replay: topology.principals?.replay ?? defaultReplayPrincipal(topology.name),
      monitor: topology.principals?.monitor ?? defaultMonitorPrincipal(topology.name),
      drift: topology.principals?.drift ?? defaultDriftPrincipal(topology.name),
    },
    environmentLabels: [...(topology.alerts?.environmentLabels ?? [])],
    consumers: consumers.map((consumer) => buildConsumerModel(topology.name, naming, consumer, topology.previousName)),
    ...(topology.previousName ? { previousName: topology.previousName } : {}),
  };
}

function buildConsumerModel(topology: string, naming: NamingStyle, { spec, source }: ParsedConsumerAt, previousName: string | undefined): ConsumerModel {
  const main = spec.topic;
  const base = spec.retryTopicBase ?? main.name;
  const ordering = spec.ordering ?? DEFAULTS.ordering;
  const ladder = spec.ladder ?? (ordering === 'in-place-only' ? [] : DEFAULTS.ladder);
  const tierAt = (entry: TierEntry, field: 'ladder' | 'retired', i: number, index: number): RetryTierModel => {
    const tier = typeof entry === 'string' ? { delay: entry } : entry;
    const delayMs = durationToMs(tier.delay);
    const retentionMs = durationToMs(tier.retention ?? DEFAULTS.tierRetention);
    return {
      kind: 'retry',
      index,
      draining: field === 'retired',
      name: retryTopicName(base, delayMs, naming),
      delayMs,
      label: formatDuration(delayMs),
      partitions: tier.partitions ?? main.partitions,
      retentionMs,
      config: topicConfig(retentionMs),
      source: { file: source.file, path: `${source.path}.${field}[${i}]` },
    };
  };
  const tiers = ladder.map((entry, i) => tierAt(entry, 'ladder', i, i + 1));
  const drainingTiers = (spec.retired ?? [])
    .map((entry, i) => {
      const delayMs = durationToMs(typeof entry === 'string' ? entry : entry.delay);
      return tierAt(entry, 'retired', i, tiers.filter((t) => t.delayMs < delayMs).length + 1);
    })
    .sort((a, b) => a.delayMs - b.delayMs);
  const dlqRetentionMs = durationToMs(spec.dlq?.retention ?? DEFAULTS.dlqRetention);
  const group = spec.group ?? spec.name;
  const criticality = spec.criticality ?? DEFAULTS.criticality;
  return {
    name: spec.name,
    topology,
    source,
    mainTopic: {
      kind: 'main',
      name: main.name,
      partitions: main.partitions,
      managed: main.managed ?? false,
      ...(main.previouslyManaged !== undefined && main.previouslyManaged !== (main.managed ?? false) ? { previouslyManaged: main.previouslyManaged } : {}),
      config: mainTopicConfig(main.config ?? {}, main.managed ?? false),
    },
    tiers,
    drainingTiers,
    decommissioned: spec.decommissioned ?? false,
    ...(spec.previousOrdering ? { previousOrdering: spec.previousOrdering } : {}),
    ...((spec.previousTopology ?? previousName) && (spec.previousTopology ?? previousName) !== topology ? { previousTopology: (spec.previousTopology ?? previousName)! } : {}),
    dlq: {
      kind: 'dlq',
      name: dlqTopicName(base, naming),
      partitions: spec.dlq?.partitions ?? main.partitions,
      retentionMs: dlqRetentionMs,
      config: topicConfig(dlqRetentionMs),
      source: { file: source.file, path: `${source.path}.dlq` },
    },
    dlqAudit: {
      kind: 'dlq-audit',
      name: dlqAuditTopicName(base, naming),
      partitions: 1,
      retentionMs: durationToMs(spec.dlq?.auditRetention ?? DEFAULTS.dlqAuditRetention),
      config: topicConfig(durationToMs(spec.dlq?.auditRetention ?? DEFAULTS.dlqAuditRetention)),
    },
    retryTopicBase: base,
    groups: { main: group, retry: retryGroupName(group, ordering), replay: replayGroupName(group), monitor: monitorGroupName(group) },
    principal: spec.principal,
    inPlace: {
      attempts: spec.inPlace?.attempts ?? DEFAULTS.inPlaceAttempts,
      backoffMs: durationToMs(spec.inPlace?.backoff ?? DEFAULTS.inPlaceBackoff),
      maxBackoffMs: durationToMs(spec.inPlace?.maxBackoff ?? DEFAULTS.inPlaceMaxBackoff),
      jitter: spec.inPlace?.jitter ?? DEFAULTS.inPlaceJitter,
    },
    criticality,
    alerts: resolveAlerts(CRITICALITY_PRESETS[criticality], spec.alerts ?? {}),
    errorPolicy: {
      permanent: (spec.errors?.permanent ?? []).map(String),
      ambiguous: (spec.errors?.ambiguous ?? []).map(String),
      ambiguousTiers: spec.errors?.ambiguousTiers ?? Math.min(DEFAULTS.ambiguousTiers, tiers.length),
    },
    ordering,
    headerStyle: spec.headers ?? DEFAULTS.headers,
    ...(spec.value ? { value: spec.value } : {}),
  };
}

function topicConfig(retentionMs: number): Record<string, string> {
  return { 'cleanup.policy': 'delete', 'retention.ms': String(retentionMs), 'compression.type': CREATED_TOPIC_COMPRESSION };
}

/**
 * The spec's topic.config of a main topic, as strings; a managed one's compression.type is
 * `producer` unless the spec sets its own. An unmanaged one's is kept as written (it is not
 * applied, and a warning says so when it is not empty).
 */
function mainTopicConfig(config: Readonly<Record<string, string | number | boolean>>, managed: boolean): Record<string, string> {
  const written = Object.fromEntries(Object.entries(config).map(([key, value]) => [key, String(value)]));
  return managed ? { ...written, 'compression.type': written['compression.type'] ?? CREATED_TOPIC_COMPRESSION } : written;
}

function resolveAlerts(
  preset: Readonly<Record<keyof ConsumerModel['alerts'], AlertPolicy>>,
  overrides: NonNullable<ParsedConsumer['alerts']>,
): ConsumerModel['alerts'] {
  const entries = Object.entries(preset).map(([key, policy]) => {
    const override = overrides[key as keyof typeof overrides];
    return [
      key,
      {
        threshold: override?.threshold ?? policy.threshold,
        forMs: override?.for !== undefined ? durationToMs(override.for) : policy.forMs,
        severity: override?.severity ?? policy.severity,
      },
    ];
  });
  return Object.fromEntries(entries) as ConsumerModel['alerts'];
}

/** Freezes a model so emitters cannot change what others read. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
