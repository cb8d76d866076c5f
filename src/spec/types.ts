import type { ZodType } from 'zod';
import type { Duration } from '../duration';
import type { AlertKey } from '../alerts';
import type { HeaderStyle, NamingStyle } from '../naming';
import type { Criticality, OrderingStrategy, Severity } from './vocabulary';

export { CRITICALITIES, ORDERING_STRATEGIES, SEVERITIES } from './vocabulary';
export type { Criticality, OrderingStrategy, Severity } from './vocabulary';

/**
 * The topology spec: what a team writes in `topologies/*.ts`. Every optional field
 * documents its default; `krt validate` checks the whole spec and names every problem.
 */
export interface TopologySpec {
  /** Lower-case words joined by '-'. Names the Terraform stack and the router package. */
  readonly name: string;
  /** Owning team and on-call contact, shown in alerts and runbooks. */
  readonly owner: OwnerSpec;
  /** Where the generated runbooks are hosted; alerts link to `{runbookBaseUrl}/{consumer}.md#{alert}`. */
  readonly runbookBaseUrl: string;
  /** Defaults for every topic this topology creates. */
  readonly cluster?: ClusterSpec;
  /** Retry and DLQ topic naming. Default `'default'` (`{topic}.retry.1m`, `{topic}.dlq`); `'spring'` gives `{topic}-retry-60000`, `{topic}-dlt`. */
  readonly naming?: NamingStyle;
  /** The principals of the DLQ replay tool and of the DLQ/tier monitor. */
  readonly principals?: PrincipalsSpec;
  /** Settings every alert of this topology shares. */
  readonly alerts?: TopologyAlertsSpec;
  /**
   * The name this topology had before a rename. Its consumers keep their topics: the
   * stack of the old name is still generated, with `removed` blocks that make its
   * Terraform state forget them (`destroy = false`), and this stack imports them.
   * Remove it once both stacks are applied (see docs/changing-topologies.md).
   */
  readonly previousName?: string;
  /** The consumers whose failures this topology routes. At least one. */
  readonly consumers: readonly ConsumerSpec[];
}

export interface OwnerSpec {
  /** Team label on every alert, e.g. `'billing'`. */
  readonly team: string;
  /** Who is paged, e.g. `'#billing-oncall'` or a pager rotation. */
  readonly onCall: string;
}

export interface ClusterSpec {
  /** Replication factor of created topics. Default 3. Also a Terraform variable, so a test cluster can lower it. */
  readonly replicationFactor?: number;
  /** `min.insync.replicas` of created topics. Default 2; at most the replication factor. */
  readonly minInsyncReplicas?: number;
}

export interface PrincipalsSpec {
  /** Reads the DLQ and writes back to main topics. Default `User:{topology}-replay`. */
  readonly replay?: string;
  /** Reads offsets and DLQ heads for the gauges. Default `User:{topology}-monitor`. */
  readonly monitor?: string;
  /** Read-only: describes topics, configs, groups and ACLs for `krt plan --live`. Default `User:{topology}-drift`. */
  readonly drift?: string;
}

export interface ConsumerSpec {
  /** Lower-case words joined by '-', unique across all topologies. Labels metrics and names the runbook. */
  readonly name: string;
  /** The topic this consumer reads. */
  readonly topic: MainTopicSpec;
  /** Main consumer group. Default: the consumer's name. Retry group `{group}.retry`, replay group `{group}.dlq-replay`. */
  readonly group?: string;
  /** The consumer's Kafka principal, `User:name`. */
  readonly principal: string;
  /**
   * Retry tiers as delays, strictly increasing, one topic each: `['1m', '10m', '1h']`.
   * An entry may also be `{ delay, partitions, retention }`.
   * Default `['1m', '10m', '1h']`, or none when `ordering` is `'in-place-only'`.
   */
  readonly ladder?: readonly (Duration | TierSpec)[];
  /**
   * Tiers that left the ladder and are draining: their topics and ACLs stay, the retry
   * consumer still reads them and sends each record on to the live tier its `x-attempt`
   * reaches. Drop an entry once `krt plan --live` reports the tier empty. Same shape as
   * a ladder entry (keep its partitions and retention). Default none.
   */
  readonly retired?: readonly (Duration | TierSpec)[];
  /**
   * First step of removing a consumer: nothing is deleted while it is set, so its DLQ can
   * be replayed or discarded and its tiers drain. Only a consumer committed with
   * `decommissioned: true` may then be removed from the spec. Default false.
   */
  readonly decommissioned?: boolean;
  /**
   * Acknowledges a switch of `ordering` that changes which group reads the tiers
   * (`unordered` <-> `park-by-key`): set it to the old strategy once the tiers are drained
   * or the new group's offsets are set (see docs/changing-topologies.md). Remove it after the deploy.
   */
  readonly previousOrdering?: OrderingStrategy;
  /**
   * The topology this consumer was in before it moved here. Its topics keep their
   * records: the old stack forgets them (`removed` with `destroy = false`) and this
   * stack imports them. Remove it once both stacks are applied. Default: the topology's
   * `previousName`, if any.
   */
  readonly previousTopology?: string;
  /** The stem of retry and DLQ topic names. Default: the main topic's name. Set it when two consumers read one topic. */
  readonly retryTopicBase?: string;
  /** Retries in the handler before routing, for short transient errors. */
  readonly inPlace?: InPlaceRetrySpec;
  /** The dead-letter topic. */
  readonly dlq?: DlqSpec;
  /** Sets alert thresholds and severities. Default `'standard'`. */
  readonly criticality?: Criticality;
  /** Per-alert overrides of the criticality preset. */
  readonly alerts?: Partial<Record<AlertKey, AlertOverrideSpec>>;
  /** What the runtime does with the errors this consumer knows. */
  readonly errors?: ErrorPolicySpec;
  /** How per-key order survives retries (R15). Default `'unordered'`. */
  readonly ordering?: OrderingStrategy;
  /** Headers on retry and DLQ records. Default `'x'`; `'x+spring'` adds Spring Kafka's `kafka_dlt-*` headers to DLQ records. */
  readonly headers?: HeaderStyle;
  /**
   * How the handler receives each record's value: a zod schema over JSON, or a decode
   * function from a package (`{ decode, from }`). The generated router package types the
   * handler's `record.value` from it; a value it refuses (a decode function calls
   * `refuse()`) goes to the DLQ at attempt 1 with `x-error-class: DeserializationError`;
   * another error of the decoder takes the error policy. Default none: the handler reads the bytes
   * in `record.message.value`.
   */
  readonly value?: ValueCodecSpec;
}

/** A zod schema over UTF-8 JSON (JSON types only: the package carries it as JSON Schema), or a decode function. */
export type ValueCodecSpec = ZodType | DecodeFunctionSpec;

export interface DecodeFunctionSpec {
  /** The decoder, imported by the spec from `from`: bytes in, the handler's value out; throw (or reject) to refuse. */
  decode(value: Buffer | null): unknown;
  /** The package that exports `decode`, e.g. `'@acme/order-events'`: the router package requires it from there (a peer dependency). */
  readonly from: string;
  /** The name `from` exports it under. Default: the function's own name. */
  readonly export?: string;
}

export interface MainTopicSpec {
  readonly name: string;
  /** Partition count; retry and DLQ topics get at least as many (R4). */
  readonly partitions: number;
  /** Whether this topology creates the topic. Default false: it belongs to its producers. */
  readonly managed?: boolean;
  /**
   * Declares a switch of `managed`: `managed: true, previouslyManaged: false` imports
   * the existing topic into the stack; `managed: false, previouslyManaged: true` makes
   * the stack forget it (`removed` with `destroy = false`), so the topic and its records
   * stay. Remove it once the stack is applied.
   */
  readonly previouslyManaged?: boolean;
  /** Topic configs applied when managed, e.g. `{ 'retention.ms': '604800000' }`. Default none. */
  readonly config?: Readonly<Record<string, string | number | boolean>>;
}

export interface TierSpec {
  readonly delay: Duration;
  /** Default: the main topic's partitions. */
  readonly partitions?: number;
  /** Default `'7d'`; at least the delay plus one day, so a stopped retry consumer loses nothing for a day. */
  readonly retention?: Duration;
}

export interface InPlaceRetrySpec {
  /** Attempts in the handler, counting the first (as Spring's `maxAttempts`). Default 3; 1 turns in-place retry off. */
  readonly attempts?: number;
  /** Backoff before the first in-place retry, doubled each time. Default `'100ms'`. */
  readonly backoff?: Duration;
  /** Cap of the backoff. Default `'2s'`. */
  readonly maxBackoff?: Duration;
  /** Share of each backoff that is randomized, 0 to 1. Default 0.5. */
  readonly jitter?: number;
}

export interface DlqSpec {
  /** Default `'28d'`; at least `'7d'` (R5): a short DLQ retention is delayed data loss. */
  readonly retention?: Duration;
  /** Default: the main topic's partitions. */
  readonly partitions?: number;
  /** How long the audit log of replays and discards is kept. Default `'365d'`. */
  readonly auditRetention?: Duration;
}

export interface TopologyAlertsSpec {
  /**
   * Labels that tell environments apart in a Prometheus that scrapes several, e.g.
   * `['cluster', 'namespace']`: every aggregation keeps them and every alert shows them.
   * Default none.
   */
  readonly environmentLabels?: readonly string[];
}

export interface AlertOverrideSpec {
  /** The alert's threshold, in the unit the presets table of docs/spec.md gives. */
  readonly threshold?: number;
  /** How long the condition must hold before the alert fires, e.g. `'5m'`. */
  readonly for?: Duration;
  readonly severity?: Severity;
}

export interface ErrorPolicySpec {
  /** Error names (`err.name`, class name) or codes (`err.code`, HTTP status) sent to the DLQ at once. Default none. */
  readonly permanent?: readonly (string | number)[];
  /** Errors that may resolve themselves (an entity not yet arrived): a few tiers, then the DLQ. Default none. */
  readonly ambiguous?: readonly (string | number)[];
  /** How many tiers an ambiguous error gets. Default 2, or the ladder's length if shorter. */
  readonly ambiguousTiers?: number;
}

