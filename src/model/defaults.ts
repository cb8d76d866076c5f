import type { Duration } from '../duration';

/** Every default of the spec, in one place; the README's field reference lists the same. */
export const DEFAULTS = {
  replicationFactor: 3,
  minInsyncReplicas: 2,
  naming: 'default',
  ladder: ['1m', '10m', '1h'] as readonly Duration[],
  tierRetention: '7d' as Duration,
  dlqRetention: '28d' as Duration,
  dlqAuditRetention: '365d' as Duration,
  inPlaceAttempts: 3,
  inPlaceBackoff: '100ms' as Duration,
  inPlaceMaxBackoff: '2s' as Duration,
  inPlaceJitter: 0.5,
  criticality: 'standard',
  ambiguousTiers: 2,
  ordering: 'unordered',
  headers: 'x',
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** R5: a DLQ that forgets within days is delayed data loss. */
export const MIN_DLQ_RETENTION_MS = 7 * DAY_MS;

/** A tier keeps its records this long past their due time, so a stopped retry consumer loses nothing for a day. */
export const MIN_TIER_RETENTION_GRACE_MS = DAY_MS;

/**
 * The `compression.type` of every topic krt creates: the broker keeps each batch as its
 * producer compressed it. A topic that sets none takes the broker's default
 * (`compression.type` of the broker), and a broker set to zstd or lz4 recompresses every
 * batch (CPU on the broker) and hands consumers that codec, which KafkaJS decodes only when
 * one is registered (it decodes gzip alone; see connection/kafkajs-codecs.ts). A managed main
 * topic whose spec sets compression.type in topic.config keeps the spec's.
 */
export const CREATED_TOPIC_COMPRESSION = 'producer';
