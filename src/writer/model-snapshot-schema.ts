import { z } from 'zod';
import { ALERT_KEYS } from '../alerts';

/**
 * The shape a model snapshot must have for the guards to read it: every field they or the
 * emitters read, checked on read instead of cast, so a snapshot of another shape is told
 * in one sentence, never met as a TypeError deep in a guard. Unknown fields pass: the
 * version says when the shape changed.
 */
const location = z.object({ file: z.string(), path: z.string() });
const config = z.record(z.string(), z.string());
const topicBase = { name: z.string(), partitions: z.number().int(), config };
const tier = z.object({ ...topicBase, kind: z.literal('retry'), index: z.number(), draining: z.boolean(), delayMs: z.number(), label: z.string(), retentionMs: z.number(), source: location });
const alert = z.object({ threshold: z.number(), forMs: z.number(), severity: z.enum(['critical', 'warning']) });

const consumer = z.object({
  name: z.string(),
  topology: z.string(),
  source: location,
  mainTopic: z.object({ ...topicBase, kind: z.literal('main'), managed: z.boolean(), previouslyManaged: z.boolean().optional() }),
  tiers: z.array(tier),
  drainingTiers: z.array(tier),
  decommissioned: z.boolean(),
  previousOrdering: z.string().optional(),
  previousTopology: z.string().optional(),
  dlq: z.object({ ...topicBase, kind: z.literal('dlq'), retentionMs: z.number(), source: location }),
  dlqAudit: z.object({ ...topicBase, kind: z.literal('dlq-audit'), retentionMs: z.number() }),
  retryTopicBase: z.string(),
  groups: z.object({ main: z.string(), retry: z.string(), replay: z.string(), monitor: z.string() }),
  principal: z.string(),
  inPlace: z.object({ attempts: z.number(), backoffMs: z.number(), maxBackoffMs: z.number(), jitter: z.number() }),
  criticality: z.enum(['money', 'standard', 'analytics']),
  // Any alert may be missing: one added since the snapshot was written (filled from the presets: withEveryAlert).
  alerts: z.object(Object.fromEntries(ALERT_KEYS.map((key) => [key, alert.optional()]))),
  errorPolicy: z.object({ permanent: z.array(z.string()), ambiguous: z.array(z.string()), ambiguousTiers: z.number() }),
  ordering: z.enum(['unordered', 'park-by-key', 'in-place-only']),
  headerStyle: z.string(),
});

const held = z.object({
  topics: z.array(z.object({ address: z.string(), name: z.string(), partitions: z.number(), replicationFactor: z.number(), config })),
  acls: z.array(z.string()),
});

const topology = z.object({
  name: z.string(),
  source: location,
  owner: z.object({ team: z.string(), onCall: z.string() }),
  runbookBaseUrl: z.string(),
  cluster: z.object({ replicationFactor: z.number(), minInsyncReplicas: z.number() }),
  naming: z.string(),
  principals: z.object({ replay: z.string(), monitor: z.string(), drift: z.string() }),
  environmentLabels: z.array(z.string()),
  consumers: z.array(consumer),
  previousName: z.string().optional(),
  handedOver: z.array(z.object({ stack: z.string(), topics: z.array(z.string()), acls: z.array(z.string()), mayHold: held.optional() })).optional(),
  mayHold: held.optional(),
});

/** A deleted topology file's stack, kept empty (version 4 on; before, a hand-over of nothing in the first topology). */
const keptStack = z.object({ stack: z.string(), cluster: z.object({ replicationFactor: z.number(), minInsyncReplicas: z.number() }), mayHold: held.optional() });

export const modelSnapshotSchema = z.object({ version: z.number(), topologies: z.array(topology), keptStacks: z.array(keptStack).optional() });

/**
 * The alerts the model gained while the snapshot version stayed 1 (history: a version-1
 * snapshot may lack them, as it may lack the drift principal and the environment labels;
 * like any snapshot it may lack any alert added since).
 */
export const ALERTS_ADDED_UNDER_VERSION_1 = ['dlqRecordsExpired', 'mainConsumerLag', 'consumerDown', 'monitorDown'] as const;

const topologyV1 = topology.extend({
  principals: z.object({ replay: z.string(), monitor: z.string(), drift: z.string().optional() }),
  environmentLabels: z.array(z.string()).optional(),
});

/** Every shape a version-1 snapshot had, from its first (2439c00) to its last (3b8741c^). */
export const modelSnapshotV1Schema = z.object({ version: z.literal(1), topologies: z.array(topologyV1) });
export type ModelSnapshotV1 = z.infer<typeof modelSnapshotV1Schema>;
