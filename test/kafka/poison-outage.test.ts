import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry } from 'kafkajs';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createAclsInEffect, createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { eachClient } from './clients';

jest.setTimeout(3 * 60_000);

const USER = 'billing';
/** The broker's smallest allowed session timeout: the outage below outlasts it twice over. */
const SESSION_TIMEOUT_MS = 6_000;

async function consumerWithAcls(): Promise<{ d: ConsumerDescriptor; dlqWrite: AclEntry }> {
  const d = testDescriptor('poison-outage', []);
  const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes): AclEntry => ({
    resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: `User:${USER}`, host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  const dlqWrite = acl(AclResourceTypes.TOPIC, d.dlqTopic, AclOperationTypes.WRITE);
  await createTopicsOf(d, 2);
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createAclsInEffect(admin, { acl: [acl(AclResourceTypes.TOPIC, d.mainTopic, AclOperationTypes.READ), acl(AclResourceTypes.GROUP, d.groups.main, AclOperationTypes.READ)] });
  await admin.disconnect();
  return { d, dlqWrite };
}

/** The port, counting the group joins of its consumers: one per member when nothing evicts it. */
function countingJoins(port: KafkaPort): { port: KafkaPort; joins: () => number } {
  let joins = 0;
  return {
    joins: () => joins,
    port: {
      producer: () => port.producer(),
      consumer: (groupId, options) => {
        const consumer = port.consumer(groupId, options);
        consumer.onRebalance(() => joins++);
        return consumer;
      },
    },
  };
}

eachClient('a DLQ outage longer than the session timeout, on a real broker', { user: USER, consumerConfig: { sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: 1_000 } }, (port) => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('keeps the member in its group while a poison record waits for the DLQ, and delivers it once the DLQ accepts writes', async () => {
    const { d, dlqWrite } = await consumerWithAcls();
    const counted = countingJoins(port());
    let firstRefusalAt: number | undefined;
    consumer = createRetryingConsumer(d, {
      kafka: counted.port,
      publishBackoff: { initialMs: 500, maxMs: 2_000 },
      handler: async (record) => {
        if (record.message.value!.toString() === 'poison') throw new SyntaxError('unreadable');
      },
      onEvent: (e) => void (e.type === 'publish-failed' && (firstRefusalAt ??= Date.now())),
    });
    await consumer.start();
    await eventually('the consumer to join its group', () => (counted.joins() >= 1 ? true : undefined));
    const joinsBefore = counted.joins();
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: 'poison', partition: 0 }]);
    await eventually('the DLQ to refuse the poison record for twice the session timeout', () =>
      firstRefusalAt !== undefined && Date.now() - firstRefusalAt > 2 * SESSION_TIMEOUT_MS ? true : undefined,
    );
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await createAclsInEffect(admin, { acl: [dlqWrite] });
    const offsets = async () => (await admin.fetchTopicOffsets(d.dlqTopic)).reduce((n, p) => n + Number(p.high), 0);
    const committed = async () => Number((await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] }))[0]!.partitions.find((p) => p.partition === 0)!.offset);
    await eventually('the poison record in the DLQ', async () => ((await offsets()) >= 1 ? true : undefined), 60_000);
    await eventually('the poison record committed', async () => ((await committed()) === 1 ? true : undefined), 60_000);
    // An evicted member would have rejoined (a rebalance) and, its commit refused, published the record twice.
    expect({ joins: counted.joins(), dlq: await offsets() }).toEqual({ joins: joinsBefore, dlq: 1 });
    await admin.disconnect();
  });
});
