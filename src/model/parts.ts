import type { HeaderStyle, NamingStyle } from '../naming';
import type { ValueCodecDescriptor } from '../runtime/descriptor';
import type { Criticality, OrderingStrategy, Severity } from '../spec/vocabulary';

/*
 * The model's types but for the two that the alert modules key: a consumer's alert
 * policies are keyed by the alert modules, and the alert modules read the rest (these
 * parts), so the parts come first and model/types.ts joins them (no import cycle).
 */

/** Where a piece of the model came from, for messages that point back at the spec. */
export interface SpecLocation {
  readonly file: string;
  readonly path: string;
}

/** A topology as the model has it, but for its consumers. */
export interface TopologyParts {
  readonly name: string;
  readonly source: SpecLocation;
  readonly owner: { readonly team: string; readonly onCall: string };
  readonly runbookBaseUrl: string;
  readonly cluster: { readonly replicationFactor: number; readonly minInsyncReplicas: number };
  readonly naming: NamingStyle;
  readonly principals: { readonly replay: string; readonly monitor: string; readonly drift: string };
  /** Labels every alert aggregation keeps, to tell environments apart (spec `alerts.environmentLabels`). */
  readonly environmentLabels: readonly string[];
  /** The topology's name before a rename (spec \`previousName\`): the old stack is still generated, to forget what moved. */
  readonly previousName?: string;
  /**
   * Topics that consumers took with them to another topology, per stack whose Terraform
   * state still holds them: this topology's own stack, or that of its previous name.
   * Set across files, once every topology is known (see \`handOverMoves\`).
   */
  readonly handedOver?: readonly HandOver[];
  /**
   * What the topology's own stack deleted (a consumer removed, a tier dropped) and its
   * Terraform state may still hold until that stack is applied, which krt cannot tell
   * offline: judged as still there until the operator says so (\`krt synth --applied
   * <stack>\`) or the stack declares it again. Nothing is generated from it.
   */
  readonly mayHold?: HeldResources;
}

/** The topics and ACLs a Terraform stack forgets (\`removed\`, \`destroy = false\`) because another stack imports them. */
export interface HandOver {
  readonly stack: string;
  readonly topics: readonly string[];
  /** Resource ids of the ACLs the moved consumers are granted in their new stack. */
  readonly acls: readonly string[];
  /**
   * What this stack's Terraform state may still hold that its configuration no longer
   * declares (snapshots of version 3 and before also carried the kept stack of a deleted
   * topology file here, as a hand-over of nothing: see `KeptStack`), until it is applied. krt cannot tell offline when that happens, so it is judged as
   * still there until the operator says so (`krt synth --applied <stack>`). Nothing is
   * generated from it.
   */
  readonly mayHold?: HeldResources;
}

/**
 * The stack of a deleted topology file, kept with no resources: its configuration has
 * nothing, so applying it deletes whatever its state still holds.
 */
export interface KeptStack {
  readonly stack: string;
  /** The deleted topology's cluster settings: the defaults of the stack's connection variables. */
  readonly cluster: { readonly replicationFactor: number; readonly minInsyncReplicas: number };
  /**
   * What its Terraform state may still hold: what it last held, until the operator says it
   * was applied (`krt synth --applied <stack>`). Nothing is generated from it.
   */
  readonly mayHold?: HeldResources;
}

/** Resources a Terraform state may hold: topics as they were declared, and ACL resource ids. */
export interface HeldResources {
  readonly topics: readonly HeldTopic[];
  readonly acls: readonly string[];
}

export interface HeldTopic {
  readonly address: string;
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly config: Readonly<Record<string, string>>;
}

export interface TopicModelBase {
  readonly name: string;
  readonly partitions: number;
  /** Topic-level configs other than `min.insync.replicas`, which comes from the cluster settings. */
  readonly config: Readonly<Record<string, string>>;
}

export interface MainTopicModel extends TopicModelBase {
  readonly kind: 'main';
  readonly managed: boolean;
  /** Declares a switch of \`managed\`: the stack imports the topic (was unmanaged) or forgets it (was managed). */
  readonly previouslyManaged?: boolean;
}

export interface RetryTierModel extends TopicModelBase {
  readonly kind: 'retry';
  /** 1 for the first tier. A draining tier takes the place its delay has among the live tiers. */
  readonly index: number;
  /** A retired tier: kept and still consumed until it is empty, never routed to. */
  readonly draining: boolean;
  readonly delayMs: number;
  /** `5s`, `10m`, `1h`: how people and topic names refer to the tier. */
  readonly label: string;
  readonly retentionMs: number;
  readonly source: SpecLocation;
}

export interface DlqTopicModel extends TopicModelBase {
  readonly kind: 'dlq';
  readonly retentionMs: number;
  readonly source: SpecLocation;
}

export interface DlqAuditTopicModel extends TopicModelBase {
  readonly kind: 'dlq-audit';
  readonly retentionMs: number;
}

export type TopicModel = MainTopicModel | RetryTierModel | DlqTopicModel | DlqAuditTopicModel;

export interface AlertPolicy {
  readonly threshold: number;
  readonly forMs: number;
  readonly severity: Severity;
}

/** A consumer as the model has it, but for its alert policies (keyed by the alert modules, which read these parts). */
export interface ConsumerParts {
  readonly name: string;
  readonly topology: string;
  readonly source: SpecLocation;
  readonly mainTopic: MainTopicModel;
  /** The live ladder, in order. */
  readonly tiers: readonly RetryTierModel[];
  /** Retired tiers still being drained, by delay. */
  readonly drainingTiers: readonly RetryTierModel[];
  /** Acknowledged for removal: everything stays until the consumer leaves the spec. */
  readonly decommissioned: boolean;
  /** The ordering the consumer ran with before a switch the spec acknowledges. */
  readonly previousOrdering?: OrderingStrategy;
  /** The topology whose stack held this consumer's topics before a move (or the topology's rename). */
  readonly previousTopology?: string;
  readonly dlq: DlqTopicModel;
  readonly dlqAudit: DlqAuditTopicModel;
  readonly retryTopicBase: string;
  readonly groups: { readonly main: string; readonly retry: string; readonly replay: string; readonly monitor: string };
  readonly principal: string;
  readonly inPlace: {
    readonly attempts: number;
    readonly backoffMs: number;
    readonly maxBackoffMs: number;
    readonly jitter: number;
  };
  readonly criticality: Criticality;
  readonly errorPolicy: {
    readonly permanent: readonly string[];
    readonly ambiguous: readonly string[];
    readonly ambiguousTiers: number;
  };
  readonly ordering: OrderingStrategy;
  readonly headerStyle: HeaderStyle;
  /** The spec's value codec, as the router package carries it; absent: values stay bytes. */
  readonly value?: ValueCodecDescriptor;
}
