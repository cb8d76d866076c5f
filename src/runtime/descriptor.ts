import type { HeaderStyle } from '../naming/headers';

/**
 * What the runtime needs to know about one consumer: the contract between the
 * generated router package (typed constants) and the runtime. Defined here, once.
 */
export interface ConsumerDescriptor {
  readonly name: string;
  readonly mainTopic: string;
  readonly groups: { readonly main: string; readonly retry: string; readonly replay: string; readonly monitor: string };
  /**
   * The live ladder in order, then the draining tiers: retired from the ladder, still
   * read (and their lag reported) until empty, never routed to.
   */
  readonly tiers: readonly TierDescriptor[];
  readonly dlqTopic: string;
  /**
   * The DLQ's audit log (`{base}.dlq.audit`): the monitor reads it when Kafka deleted the
   * replay group's commits. Absent in router packages generated before it was added.
   */
  readonly dlqAuditTopic?: string;
  readonly inPlace: InPlacePolicy;
  readonly errorPolicy: ErrorPolicy;
  readonly ordering: 'unordered' | 'park-by-key' | 'in-place-only';
  readonly headerStyle: HeaderStyle;
  /** How the handler receives record values (spec `value`); absent: as bytes, in `message.value`. */
  readonly value?: ValueCodecDescriptor;
}

export interface TierDescriptor {
  /** 1 for the first tier. A draining tier takes the place its delay has among the live tiers. */
  readonly index: number;
  /** Retired: its records go on to the live tier their `x-attempt` reaches. Absent for a live tier. */
  readonly draining?: true;
  readonly topic: string;
  readonly delayMs: number;
  /** `5s`, `1m`: the metric label of the tier. */
  readonly label: string;
}

export interface InPlacePolicy {
  /** Attempts in the handler, counting the first. */
  readonly attempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Share of each backoff that is randomized, 0 to 1. */
  readonly jitter: number;
}

export interface ErrorPolicy {
  /** Error names or codes that go to the DLQ at once. */
  readonly permanent: readonly string[];
  /** Error names or codes that get `ambiguousTiers` tiers, then the DLQ. */
  readonly ambiguous: readonly string[];
  readonly ambiguousTiers: number;
}

/**
 * How a consumer's record values are decoded for its handler (the spec's `value`):
 * - `json-schema`: UTF-8 JSON, checked against the JSON Schema the spec's zod schema was
 *   written as (the generated package carries the schema, not the spec's code);
 * - `decode`: a function the service imports from a package, named here so that the
 *   generated package can require it.
 */
export type ValueCodecDescriptor =
  | { readonly kind: 'json-schema'; readonly schema: JsonSchema }
  | { readonly kind: 'decode'; readonly module: string; readonly export: string };

export type JsonSchema = { readonly [key: string]: unknown };
