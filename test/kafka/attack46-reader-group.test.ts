import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry } from 'kafkajs';
import { ADMIN_USER, readBrokerInfo } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { confluentKafka, createAclsInEffect, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { restoreSuiteBroker, sleep, suiteBrokerDir } from '../helpers/suite-broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

/** A read of a partition with no commit, as the adapter answers it. */
const NO_COMMIT = [{ partition: 0, offset: '-1', metadata: null }];

jest.setTimeout(6 * 60_000);

const USER = 'billing';


async function topicWithAcls(topic: string, group: string): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
  const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes): AclEntry => ({
    resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: `User:${USER}`, host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  await createAclsInEffect(admin, { acl: [acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.READ), acl(AclResourceTypes.GROUP, group, AclOperationTypes.READ)] });
  await admin.disconnect();
}

async function members(group: string): Promise<{ state: string; members: string[] }> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  const { groups } = await admin.describeGroups([group]);
  await admin.disconnect();
  return { state: groups[0]!.state, members: groups[0]!.members.map((m) => m.clientId) };
}

describe('attack 46: the never-subscribed reader consumer and the real group', () => {
  it('with only the consumer ACLs: reads commits and metadata, and never shows up as a member', async () => {
    const topic = `attack46-group-${Date.now()}`;
    const group = `${topic}.g`;
    await topicWithAcls(topic, group);
    await produceAsAdmin(topic, [{ key: 'a', value: '1', partition: 0 }, { key: 'b', value: '2', partition: 1 }]);
    const port = confluentPort(confluentKafka(USER)).consumer(group);
    let rebalances = 0;
    port.onRebalance(() => void rebalances++);
    const seen: string[] = [];
    try {
      await port.connect();
      await port.subscribe({ topics: [topic] });
      await port.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.offset}`) });
      for (let i = 0; i < 120 && seen.length < 2; i++) await sleep(250);
      expect(seen.sort()).toEqual(['0:0', '1:0']);
      await port.commitOffsets([{ topic, partition: 0, offset: '1', metadata: 'state-0' }, { topic, partition: 1, offset: '1', metadata: 'state-1' }]);
      const rebalancesBefore = rebalances;
      const reads: unknown[] = [];
      for (let i = 0; i < 5; i++) reads.push(await port.committed(topic, [0, 1]));
      reads.push(await port.logStartOffsets!(topic, [0, 1]));
      await sleep(8_000);
      const described = await members(group);
      expect(reads[0]).toEqual([
        { partition: 0, offset: '1', metadata: 'state-0' },
        { partition: 1, offset: '1', metadata: 'state-1' },
      ]);
      expect(reads[5]).toEqual([{ partition: 0, offset: '0' }, { partition: 1, offset: '0' }]);
      expect(described.members).toHaveLength(1);
      expect(described.state).toBe('Stable');
      expect(rebalances).toBe(rebalancesBefore);
    } finally {
      await port.disconnect();
    }
    // After the port left: the group is empty, its commits kept.
    const after = await members(group);
    expect(after.members).toEqual([]);
  });

  it('stop during an outage: disconnect of a port whose read is under way returns within 10 s', async () => {
    const dir = suiteBrokerDir();
    const port = confluentPort(confluentKafka(ADMIN_USER)).consumer('attack46-stop-outage');
    const log: string[] = [];
    try {
      let answered: unknown;
      for (let tries = 0; tries < 40 && !Array.isArray(answered); tries++) {
        answered = await port.committed('attack46-stop-outage.main', [0]).catch((error: unknown) => String(error));
        if (!Array.isArray(answered)) await sleep(250);
      }
      expect(answered).toEqual(NO_COMMIT);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      await sleep(1_000);
      // The first read fails at its 5 s time-out; the next is under way when the port disconnects.
      const first = await port.committed('attack46-stop-outage.main', [0]).then(() => 'answered', (error: unknown) => String(error));
      log.push(`first read in the outage: ${first}`);
      const started = Date.now();
      const second = port.committed('attack46-stop-outage.main', [0]).then(() => 'answered', (error: unknown) => String(error));
      await sleep(1_000);
      const stopping = Date.now();
      await port.disconnect();
      const disconnectMs = Date.now() - stopping;
      log.push(`second read: ${await second} after ${Date.now() - started} ms; disconnect took ${disconnectMs} ms`);
      process.stdout.write(`${log.join('\n')}\n`);
      expect(disconnectMs).toBeLessThan(10_000);
    } finally {
      process.stdout.write(`${log.join('\n')}\n`);
      await port.disconnect().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});
