import { DefaultTokenResolver, Fn, StringConcat, TerraformElement, TerraformStack, TerraformVariable, Tokenization } from 'cdktf';
import type { Construct } from 'constructs';
import { aclResourceId, TERRAFORM_VARIABLES, topicResourceId } from '../../naming';
import { aclRules } from '../../model/acls';
import type { HandOver, ProjectModel, TopicModel, TopologyModel } from '../../model/types';
import { handedOverAddresses, ownMoves, withMoves } from './moves';
import type { StackMoves } from './moves';
import { Acl } from './.gen/providers/kafka/acl';
import { KafkaProvider } from './.gen/providers/kafka/provider';
import { Topic } from './.gen/providers/kafka/topic';

/**
 * One topology as a cdktf stack: its retry and DLQ topics (and main topics it manages)
 * and the ACLs of its principals. Connection details are variables, never literals.
 */
export class TopologyStack extends TerraformStack {
  /** What the stack's state takes over (`import`) and lets go of (`removed`, `destroy = false`). */
  private readonly moves: StackMoves;

  constructor(scope: Construct, topology: TopologyModel) {
    super(scope, topology.name);
    const { replicationFactor, minInsyncReplicas } = connection(this, topology.cluster);

    // One token of each for every topic: cdktf captures a stack trace for each token it makes.
    const replicationFactorValue = replicationFactor.numberValue;
    const minInsyncReplicasValue = minInsyncReplicas.toString();
    const topics = topicsOf(topology);
    for (const topic of topics) {
      const resource = new Topic(this, topicResourceId(topic.name), {
        name: topic.name,
        partitions: topic.partitions,
        replicationFactor: replicationFactorValue,
        config: { ...topic.config, 'min.insync.replicas': minInsyncReplicasValue },
        // Every topic krt generates may hold records: Terraform refuses a plan that would
        // destroy or replace one whose block is still here (an import that would replace
        // the topic it adopts included). A topic the spec declared gone has no block left,
        // so retiring a tier or removing a decommissioned consumer still deletes it.
        lifecycle: { preventDestroy: true },
      });
      resource.overrideLogicalId(topicResourceId(topic.name));
    }
    this.moves = ownMoves(topology);

    for (const rule of aclRules(topology)) {
      const id = aclResourceId(rule);
      new Acl(this, id, {
        aclPrincipal: rule.principal,
        aclHost: '*',
        aclOperation: rule.operation,
        aclPermissionType: 'Allow',
        resourceType: rule.resourceType,
        resourceName: rule.resourceName,
        resourcePatternTypeFilter: 'Literal',
      }).overrideLogicalId(id);
    }
  }

  /**
   * cdktf's own `toTerraform`, with less work. cdktf resolves every element, merges them,
   * then resolves the merged whole once more, for tokens that overrides or outputs may
   * bring in; this stack has neither (nothing calls `addOverride` on it or adds an
   * output), so the last walk is left out. And most elements (every ACL) hold no token
   * at all: for those, resolving only drops undefined fields, so they are copied without
   * cdktf's resolver, which sets up a context for every value. With tens of thousands of
   * ACLs the two walks took most of the emitter's time. The golden tests pin the output
   * byte for byte.
   */
  override toTerraform(): Record<string, unknown> {
    // Merging copies objects and drops undefined fields, all that resolving does to plain data.
    const resolve = (value: unknown) =>
      (isPlainData(value) ? value : Tokenization.resolve(value, { scope: this, preparing: false, resolver: RESOLVER })) as Record<string, unknown>;
    const elements = this.node.findAll().filter((c): c is TerraformElement => TerraformElement.isTerraformElement(c));
    const metadata: Record<string, unknown> = { version: this.node.tryGetContext('cdktfVersion'), stackName: this.node.id, backend: 'local' };
    for (const element of elements) mergeInto(metadata, resolve(element.toMetadata()));
    const terraform: Record<string, unknown> = { '//': { metadata, outputs: {} } };
    for (const element of elements) mergeInto(terraform, resolve(element.toTerraform()));
    return withMoves(terraform, this.moves);
  }
}

/**
 * The stack of a topology's previous name, or of a topology whose consumers all moved
 * away: no resources, only `removed` blocks, so applying it makes its state forget the
 * topics other stacks imported, and destroys what nobody took over (ACLs of its principals).
 */
export class FormerStack extends TerraformStack {
  constructor(scope: Construct, cluster: TopologyModel['cluster'], private readonly handedOver: HandOver) {
    super(scope, handedOver.stack);
    connection(this, cluster);
  }

  override toTerraform(): Record<string, unknown> {
    return withMoves(super.toTerraform() as Record<string, unknown>, { imports: [], removed: handedOverAddresses(this.handedOver) });
  }
}

/** The topology's own stack and the former stacks it still generates, in the order they are emitted. */
export function topologyStacks(scope: Construct, topology: TopologyModel): TerraformStack[] {
  const former = (topology.handedOver ?? []).filter((h) => h.stack !== topology.name);
  return [new TopologyStack(scope, topology), ...former.map((h) => new FormerStack(scope, topology.cluster, h))];
}

/**
 * The stacks of deleted topology files, kept with no resources and no blocks (see
 * plan/removed-stacks.ts): applying one deletes whatever its state still holds.
 */
export function keptStacks(scope: Construct, model: ProjectModel): TerraformStack[] {
  return (model.keptStacks ?? []).map((k) => new FormerStack(scope, k.cluster, { stack: k.stack, topics: [], acls: [] }));
}

/** Connection variables and the provider, the same in every stack; returns the topic defaults. */
function connection(stack: TerraformStack, cluster: TopologyModel['cluster']) {
  const v = TERRAFORM_VARIABLES;
  const variable = (name: string, config: ConstructorParameters<typeof TerraformVariable>[2]) => new TerraformVariable(stack, name, config);

  const bootstrapServers = variable(v.bootstrapServers, { type: 'list(string)', description: 'Kafka bootstrap servers, host:port' });
  const saslUsername = variable(v.saslUsername, { type: 'string', sensitive: true, description: 'SASL user that Terraform connects as; it needs to create topics and ACLs' });
  const saslPassword = variable(v.saslPassword, { type: 'string', sensitive: true, description: 'password of that SASL user' });
  const saslMechanism = variable(v.saslMechanism, { type: 'string', default: 'plain', description: 'plain, scram-sha-256 or scram-sha-512 (scram-sha256 and scram-sha512 too)' });
  // The provider spells SCRAM without the second dash; accept both spellings, as KAFKA_SASL_MECHANISM does.
  const providerSaslMechanism = Fn.replace(Fn.lower(saslMechanism.stringValue), 'scram-sha-', 'scram-sha');
  saslMechanism.addValidation({
    condition: Fn.contains(['plain', 'scram-sha256', 'scram-sha512'], providerSaslMechanism),
    errorMessage: `${v.saslMechanism} must be plain, scram-sha-256 or scram-sha-512.`,
  });
  const tlsEnabled = variable(v.tlsEnabled, { type: 'bool', default: true, description: 'false for a SASL_PLAINTEXT listener' });
  const replicationFactor = variable(v.replicationFactor, { type: 'number', default: cluster.replicationFactor, description: 'replication factor of the topics created here' });
  const minInsyncReplicas = variable(v.minInsyncReplicas, { type: 'number', default: cluster.minInsyncReplicas, description: 'min.insync.replicas of the topics created here' });

  new KafkaProvider(stack, 'kafka', {
    bootstrapServers: bootstrapServers.listValue,
    saslUsername: saslUsername.stringValue,
    saslPassword: saslPassword.stringValue,
    saslMechanism: providerSaslMechanism,
    tlsEnabled: tlsEnabled.booleanValue,
  });
  return { replicationFactor, minInsyncReplicas };
}

/**
 * Data that cdktf's resolver would return unchanged but for dropping undefined fields:
 * plain objects and arrays of strings without a token marker's brace, small finite
 * numbers (a number token is a huge encoded double), booleans and null.
 */
function isPlainData(value: unknown): boolean {
  switch (typeof value) {
    case 'undefined':
    case 'boolean':
      return true;
    case 'string':
      return !value.includes('{');
    case 'number':
      return Number.isFinite(value) && Math.abs(value) < 1e15;
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isPlainData);
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      return Object.entries(value).every(([key, field]) => !key.includes('{') && isPlainData(field));
    }
    default:
      return false;
  }
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(withoutUndefined);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined) copy[key] = withoutUndefined(field);
  return copy;
}

const RESOLVER = new DefaultTokenResolver(new StringConcat());

/**
 * cdktf's deep merge of resolved fragments (objects merge, arrays concatenate, anything
 * else replaces), copying what it takes and leaving undefined fields out.
 */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    // Resolving would have dropped the field: it must not remove what an earlier fragment set.
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      const copy = withoutUndefined(value) as unknown[];
      target[key] = Array.isArray(current) ? [...current, ...copy] : copy;
    } else if (typeof value === 'object' && value !== null) {
      if (typeof current !== 'object' || current === null) target[key] = {};
      mergeInto(target[key] as Record<string, unknown>, value as Record<string, unknown>);
    } else target[key] = value;
  }
}

/** Every topic the stack creates, each once, sorted by name. */
function topicsOf(topology: TopologyModel): TopicModel[] {
  const byName = new Map<string, TopicModel>();
  for (const consumer of topology.consumers) {
    if (consumer.mainTopic.managed) byName.set(consumer.mainTopic.name, consumer.mainTopic);
    for (const topic of [...consumer.tiers, ...consumer.drainingTiers, consumer.dlq, consumer.dlqAudit]) byName.set(topic.name, topic);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
