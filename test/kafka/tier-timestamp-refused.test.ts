/**
 * A tier topic an operator gave `message.timestamp.before.max.ms` (records stamped further
 * in the past are refused with INVALID_TIMESTAMP). A tier copy is stamped with the time its
 * record failed, so that a publish retried for a while does not make it due later: once the
 * retries took longer than the topic's limit (here an ACL that refused the write for a few
 * seconds, as while ACLs are re-applied), every later try was refused as well, for good,
 * and the main partition never committed past the record.
 */
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry } from 'kafkajs';
import { HEADERS } from '../../src/naming/headers';
import type { PublishFailureReason } from '../../src/runtime/publish-failure';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createAclsInEffect, createTopicsOf, kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { eachClient } from './clients';

jest.setTimeout(120_000);

const USER = 'analytics';

const acl = (resourceType: AclResourceTypes, resourceName: string, pattern: ResourcePatternTypes, operation: AclOperationTypes, permissionType: AclPermissionTypes): AclEntry => ({
  resourceType,
  resourceName,
  resourcePatternType: pattern,
  principal: `User:${USER}`,
  host: '*',
  operation,
  permissionType,
});

eachClient('a tier topic that refuses records stamped too far in the past', { user: USER }, (port) => {
  let consumer: RetryingConsumer | undefined;
  const granted: AclEntry[] = [];
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.deleteAcls({ filters: granted.splice(0) });
    await admin.disconnect();
  });

  it('publishes the tier copy again stamped now once retries outlasted message.timestamp.before.max.ms, and the record is retried from the tier', async () => {
    const d = testDescriptor('ts-refused', [1]);
    const tier = d.tiers[0]!.topic;
    await createTopicsOf(d, 1);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: tier, configEntries: [{ name: 'message.timestamp.before.max.ms', value: '2000' }] }] });
      granted.push(
        acl(AclResourceTypes.TOPIC, d.name, ResourcePatternTypes.PREFIXED, AclOperationTypes.ALL, AclPermissionTypes.ALLOW),
        acl(AclResourceTypes.GROUP, d.name, ResourcePatternTypes.PREFIXED, AclOperationTypes.ALL, AclPermissionTypes.ALLOW),
      );
      const denyWrite = acl(AclResourceTypes.TOPIC, tier, ResourcePatternTypes.LITERAL, AclOperationTypes.WRITE, AclPermissionTypes.DENY);
      granted.push(denyWrite);
      await createAclsInEffect(admin, { acl: granted });
      const producer = kafkaAsAdmin().producer();
      await producer.connect();
      await producer.send({ topic: d.mainTopic, acks: -1, messages: [{ key: 'k', value: 'fails-once', partition: 0 }] });
      await producer.disconnect();

      const handled: string[] = [];
      const failures: PublishFailureReason[] = [];
      let failed = false;
      consumer = createRetryingConsumer(d, {
        kafka: port(),
        publishBackoff: { initialMs: 200, maxMs: 1000 },
        handler: async (record) => {
          if (!failed) {
            failed = true;
            throw new Error('first try fails');
          }
          handled.push(`${record.topic}:${record.message.value!.toString()}:${record.message.headers?.[HEADERS.dueAt] === undefined ? 'no due-at' : 'due-at'}`);
        },
        onEvent: (e) => void (e.type === 'publish-failed' && failures.push(e.reason)),
      });
      await consumer.start();
      await eventually('the tier refused the write', () => (failures.includes('not-authorized') ? true : undefined), 30_000);
      // The refusals outlast the topic's two seconds before the write is allowed again.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await admin.deleteAcls({ filters: [denyWrite] });
      granted.splice(granted.indexOf(denyWrite), 1);

      await eventually('the record retried from its tier', () => (handled.length > 0 ? true : undefined), 30_000);
      expect(handled).toEqual([`${tier}:fails-once:due-at`]);
    } finally {
      await admin.disconnect();
    }
  });
});
