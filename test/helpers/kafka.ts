import { randomBytes } from 'node:crypto';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry, Admin } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import {
  prepareTerraformWorkingCopy as sharedPrepareTerraformWorkingCopy,
  terraformIn as sharedTerraformIn,
  terraformKeepingConnection,
  terraformRootFromEnv as terraformRoot,
  terraformVars as sharedTerraformVars,
} from '../../scripts/kafka/example-stacks';
import type { AclRule } from '../../src/model/acls';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

/** The broker the tests use: the one globalSetup started, or KAFKA_BOOTSTRAP_SERVERS. */
export function bootstrapServers(): string {
  const servers = process.env.KAFKA_BOOTSTRAP_SERVERS;
  if (!servers) throw new Error('no Kafka broker: the global setup starts one unless KAFKA_BOOTSTRAP_SERVERS is set');
  return servers;
}

/** A kafkajs client that authenticates as `user` (password `<user>-secret`, as the test broker has it). */
export function kafkaAs(user: string, options: { retries?: number } = {}): Kafka {
  return new Kafka({
    clientId: `krt-test-${user}`,
    brokers: bootstrapServers().split(','),
    sasl: { mechanism: 'plain', username: user, password: passwordOf(user) },
    logLevel: logLevel.NOTHING,
    retry: { retries: options.retries ?? 2, initialRetryTime: 100 },
  });
}

export const kafkaAsAdmin = () => kafkaAs(ADMIN_USER);

export { DEPLOYER_USER, exampleModel, principalNames, terraformRootFromEnv as terraformRoot } from '../../scripts/kafka/example-stacks';

/** Terraform variables for the test broker: admin credentials (or this user's), SASL_PLAINTEXT, one replica. */
export function terraformVars(user: string = ADMIN_USER): string[] {
  return sharedTerraformVars(bootstrapServers(), user);
}

/** Copies a generated stack into its working copy (its state stays) and initializes it. */
export function prepareTerraformWorkingCopy(stack: string): void {
  sharedPrepareTerraformWorkingCopy(terraformRoot(), stack);
}

/** Runs terraform in the working copy of a generated stack. */
export function terraformIn(stack: string, args: string[]): { code: number; output: string } {
  return sharedTerraformIn(terraformRoot(), stack, args);
}

/** `terraform plan -detailed-exitcode` of a stack, read again when the provider lost its broker connection (a loaded machine; the plan is read-only). */
export function terraformPlan(stack: string): { code: number; output: string } {
  return terraformKeepingConnection(terraformRoot(), stack, ['plan', '-detailed-exitcode', ...terraformVars()]);
}

/**
 * A consumer of its own for a runtime test, on fresh topics with its id as prefix:
 * tiers by delay in seconds, no in-place retries.
 */
export function testDescriptor(prefix: string, tierSeconds: readonly number[]): ConsumerDescriptor {
  const id = `${prefix}-${randomBytes(4).toString('hex')}`;
  return {
    name: id,
    mainTopic: `${id}.main`,
    groups: { main: id, retry: `${id}.retry`, replay: `${id}.dlq-replay`, monitor: `${id}.dlq-monitor` },
    tiers: tierSeconds.map((s, i) => ({ index: i + 1, topic: `${id}.main.retry.${s}s`, delayMs: s * 1000, label: `${s}s` })),
    dlqTopic: `${id}.main.dlq`,
    dlqAuditTopic: `${id}.main.dlq.audit`,
    inPlace: { attempts: 1, backoffMs: 10, maxBackoffMs: 10, jitter: 0 },
    errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 0 },
    ordering: 'unordered',
    headerStyle: 'x',
  };
}

/** Creates the main topic, tiers, DLQ and DLQ audit log of a test descriptor, as an admin. */
export async function createTopicsOf(d: ConsumerDescriptor, partitions: number): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic, ...(d.dlqAuditTopic ? [d.dlqAuditTopic] : [])].map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Writes records as the admin, acknowledged by every replica (acks=-1). Right after a broker
 * restart its partitions have no leader for a few seconds ("not the leader for that
 * topic-partition"): the producer retries for up to about half a minute, past kafkajs's default.
 */
/**
 * Retention is played by the admin API's DeleteRecords: it moves a partition's log start
 * exactly as retention does when it deletes segments (consumers, ListOffsets and fetches
 * see nothing else), but to the offset the test names and at once, where retention.ms
 * would need a lowered broker-wide log.retention.check.interval.ms, segments rolled by
 * time, and waiting on the broker's schedule. kafkajs deletes only from topics whose
 * metadata it loaded.
 */
export async function expireBelow(admin: Admin, topic: string, partition: number, offset: number): Promise<void> {
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.deleteTopicRecords({ topic, partitions: [{ partition, offset: String(offset) }] });
}

export async function produceAsAdmin(topic: string, records: { key: string; value: string; partition: number }[]): Promise<void> {
  const producer = kafkaAsAdmin().producer({ retry: { retries: 10, maxRetryTime: 5_000 } });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: records });
  await producer.disconnect();
}

/** The Confluent client, built on demand by scripts/tools/confluent.sh (the global setup runs it); its absence fails the test. */
export function confluentKafka(user: string): ConfluentKafkaLike {
  let client: { KafkaJS: { Kafka: new (config: unknown) => ConfluentKafkaLike; logLevel: Record<string, number> } };
  try {
    client = require('@confluentinc/kafka-javascript');
  } catch (error) {
    throw new Error(`@confluentinc/kafka-javascript is not built here (${String(error)}); run bash scripts/tools/confluent.sh, which builds it (the test set-up runs it)`);
  }
  return new client.KafkaJS.Kafka({
    kafkaJS: {
      brokers: bootstrapServers().split(','),
      sasl: { mechanism: 'plain', username: user, password: passwordOf(user) },
      ssl: false,
      logLevel: client.KafkaJS.logLevel.NOTHING,
    },
  });
}

/** A generated ACL rule as the kafkajs admin creates it (what the Terraform would grant). */
export function kafkajsAcl(rule: AclRule): AclEntry {
  return {
    resourceType: AclResourceTypes[rule.resourceType.toUpperCase() as 'TOPIC' | 'GROUP' | 'CLUSTER'],
    resourceName: rule.resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal: rule.principal,
    host: '*',
    // DescribeConfigs is DESCRIBE_CONFIGS in kafkajs.
    operation: AclOperationTypes[rule.operation.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase() as keyof typeof AclOperationTypes],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

/**
 * Creates ACLs and waits until the broker enforces them. The controller commits them at
 * once, and the broker's authorizer applies them from the metadata log a moment later: a
 * client acting as their principal right away was refused (TOPIC_AUTHORIZATION_FAILED on
 * subscribe, seen in CI). DescribeAcls answers from the same authorizer, so once it lists
 * every entry, requests see them.
 */
export async function createAclsInEffect(admin: Admin, request: { acl: AclEntry[] }): Promise<void> {
  await admin.createAcls(request);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const missing: AclEntry[] = [];
    for (const entry of request.acl) {
      const { resources } = await admin.describeAcls({ ...entry });
      if (!resources.some((r) => r.acls.some((a) => a.principal === entry.principal && a.operation === entry.operation && a.permissionType === entry.permissionType))) missing.push(entry);
    }
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`the broker did not enforce these ACLs within 15 s: ${missing.map((a) => `${a.principal} ${a.operation} on ${a.resourceName}`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
