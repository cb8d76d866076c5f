import { randomUUID } from 'node:crypto';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { confluentKafka, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { commitAsKafkajsMember } from '../helpers/kafkajs-member-commits';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(120_000);

/**
 * Attack 47: the Confluent reader reads commit metadata through the native committed()
 * (src/common.cc ToV8Array), which drops the metadata's last byte, taking it for the NUL
 * terminator the Confluent client writes. A commit written by any other client (kafkajs, the
 * Java tools) has no such terminator: its last character is lost (kafkajs's `plain text` read
 * `plain tex`). The runtime's own formats end with a NUL on every client and behind it an end
 * mark; a park state of an earlier release (krt-parked/1, written by kafkajs with no NUL) has an
 * open-ended last field, so cut it could read as another state. It was read again through the
 * admin, until attack 48 found that read unsafe (a C-string read past the metadata, and an admin
 * coordinator request that aborted the process): now a legacy state that holds keys is refused
 * with the way to move the group (confluent-group-reader.ts LegacyParkStateError), and one that
 * holds nothing reads cut, at or below its position (records run again, none skipped). Metadata
 * of other writers stays a byte short on this path (docs/runtime.md): the runtime reads only its own.
 */
describe('attack 47: the Confluent reader against commits written without a NUL terminator', () => {
  it('answers the runtime\u2019s current formats as stored, as the kafkajs reader does, and refuses a park state of an earlier release that holds keys', async () => {
    const topic = `attack47-meta-${randomUUID().slice(0, 8)}`;
    const groupId = `g-${randomUUID().slice(0, 8)}`;
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 5 }]);
    await admin.disconnect();
    await produceAsAdmin(topic, [0, 1, 2, 3, 4].flatMap((partition) => ['a', 'b'].map((value) => ({ key: 'k', value, partition }))));

    // A kafkajs member of the group commits (as the runtime's kafkajs adapter does).
    const metadata = ['krt-parked/1 +0 ~0', parkStateMetadata(emptyParkState(1n)), 'krt-park-tier/1 .\0', 'krt-parked/1 +0 ~é', 'krt-parked/1 +12'];
    await commitAsKafkajsMember(groupId, topic, metadata.map((m, partition) => ({ partition, offset: partition === 0 ? '0' : '1', metadata: m })));

    const kafkajsReader = kafkajsPort(kafkaAsAdmin()).consumer(groupId);
    const confluentReader = confluentPort(confluentKafka(ADMIN_USER)).consumer(groupId);
    try {
      const byKafkajs = await kafkajsReader.committed(topic, [0, 1, 2, 3, 4]);
      expect(byKafkajs.map((c) => c.metadata)).toEqual(metadata.map((m) => m.replace(/\0+$/, '')));
      const byConfluent = async (partitions: number[]) => {
        let answer: unknown;
        for (let tries = 0; tries < 40 && !Array.isArray(answer) && !String(answer).includes('earlier release'); tries++) {
          answer = await confluentReader.committed(topic, partitions).catch((error: unknown) => String(error));
          if (!Array.isArray(answer)) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        return answer;
      };
      const current = await byConfluent([1, 2, 4]);
      process.stdout.write(`kafkajs:   ${JSON.stringify(byKafkajs)}\nconfluent: ${JSON.stringify(current)}\n`);
      // The current formats as stored; the earlier release's state that holds nothing a byte short: +1 for +12, a position below.
      expect(current).toEqual([byKafkajs[1], byKafkajs[2], { ...byKafkajs[4], metadata: 'krt-parked/1 +1' }]);
      for (const partition of [0, 3]) expect(await byConfluent([partition])).toMatch(`${topic}-${partition} holds a park state of an earlier release (krt-parked/1) with more than its position in it`);
    } finally {
      await kafkajsReader.disconnect().catch(() => undefined);
      await confluentReader.disconnect().catch(() => undefined);
    }
  });
});
