/**
 * Topic ids on the real broker, as the krt commands read them: kafkajs reads none; through the
 * Confluent client (src/connection/topic-ids.ts) a topic has one, and a topic deleted and
 * created again under its name has another, which the DLQ tools and the monitor tell an old
 * topic's audit entries by.
 */
import { randomBytes } from 'node:crypto';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { confluentTopicIds, withTopicIds } from '../../src/connection/topic-ids';
import { topicIdOf } from '../../src/dlq/topic-id';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';

jest.setTimeout(120_000);

describe('a topic\'s id on the broker', () => {
  it('is none through kafkajs alone, one through the Confluent client, and another once the topic is made again', async () => {
    const topic = `topic-ids-${randomBytes(3).toString('hex')}`;
    const read = confluentTopicIds({ brokers: bootstrapServers().split(','), ssl: false, sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) } });
    if (read === undefined) throw new Error('@confluentinc/kafka-javascript does not load here; run bash scripts/tools/confluent.sh');
    const plain = kafkaAsAdmin();
    const withIds = withTopicIds(plain, read);
    const admin = plain.admin();
    await admin.connect();
    try {
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]);
      expect(await topicIdOf(admin, topic)).toBeUndefined();
      const first = await topicIdOf(withIds.admin(), topic);
      expect(first).toMatch(/^[A-Za-z0-9+/_-]{22}/);
      expect(await kafkajsMonitorPort(withIds, `${topic}-monitor`).topicId!(topic)).toBe(first);
      expect(await kafkajsMonitorPort(plain, `${topic}-monitor`).topicId!(topic)).toBeUndefined();

      await admin.deleteTopics({ topics: [topic] });
      const deadline = Date.now() + 60_000;
      while (!(await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]).catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`${topic} could not be created again within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const second = await topicIdOf(withIds.admin(), topic);
      expect(second).toMatch(/^[A-Za-z0-9+/_-]{22}/);
      expect(second).not.toBe(first);
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });
});
