import { ADMIN_USER } from '../../scripts/kafka/broker';
import type { ConsumerPort } from '../../src/runtime/port';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { clientNamed, thisNode } from './clients';

jest.setTimeout(120_000);

/**
 * Broker confirmation of test/runtime/attack-platformatic-rejoin.test.ts. Runs on Node 24.9+
 * with NODE_OPTIONS=--experimental-vm-modules, as the other @platformatic/kafka broker suites.
 */
const platformatic = clientNamed('@platformatic/kafka');
const unavailable = platformatic.unavailable(thisNode());
(unavailable ? describe.skip : describe)(`attack: the @platformatic/kafka adapter across a rebalance on a real broker${unavailable ? ` (${unavailable})` : ''}`, () => {
  let consumer: ConsumerPort | undefined;
  afterEach(async () => {
    await consumer?.disconnect();
    consumer = undefined;
  });

  /*
   * Partitions are added to the topic while the group has committed nothing and a record is
   * in the handler; the adapter's partition-count watch rejoins (its own fix), its start-over
   * drops r1..r5, fetched and queued, and the client's stream kept its position past them
   * (no commit to go back to): r0's commit and r6's then passed them, lost. Fixed: the
   * start-over drops the stream's positions too.
   */
  it('partitions added before the first commit: every record of the partition is handled, none skipped', async () => {
    const d = testDescriptor('atk', [1]);
    await createTopicsOf(d, 1);
    await produceAsAdmin(d.mainTopic, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'].map((value) => ({ key: 'k', value, partition: 0 })));
    const handed: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const c = (consumer = platformatic.port(ADMIN_USER).consumer(d.groups.main));
    await c.connect();
    await c.subscribe({ topics: [d.mainTopic], fromBeginning: true });
    let rebalances = 0;
    c.onRebalance(() => rebalances++);
    await c.run({
      eachMessage: async ({ topic, partition, message }) => {
        if (message.value!.toString() === 'r0') await held;
        handed.push(message.value!.toString());
        await c.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
    const waitFor = async (what: string, probe: () => boolean, ms = 30_000) => {
      const deadline = Date.now() + ms;
      while (!probe()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitFor('the first join', () => rebalances >= 1);
    await new Promise((r) => setTimeout(r, 2_000)); // r0 in the handler, r1..r5 fetched and queued
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.createPartitions({ topicPartitions: [{ topic: d.mainTopic, count: 2 }] });
    await admin.disconnect();
    await waitFor('the rejoin for the added partition', () => rebalances >= 2);
    release();
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: 'r6', partition: 0 }]);
    await waitFor('r6', () => handed.includes('r6'));
    await new Promise((r) => setTimeout(r, 2_000)); // anything still to come
    expect([...new Set(handed)]).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });
});
