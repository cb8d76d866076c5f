import { ADMIN_USER } from '../../scripts/kafka/broker';
import type { ConsumerPort } from '../../src/runtime/port';
import { createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { clientNamed, thisNode } from './clients';

jest.setTimeout(120_000);

/**
 * Broker confirmation of a finding of the #23 review (see test/runtime/review-clients.test.ts
 * for the unit reproductions and their root causes). Runs on Node 24.9+ with
 * NODE_OPTIONS=--experimental-vm-modules, as the other @platformatic/kafka broker suites.
 */
const platformatic = clientNamed('@platformatic/kafka');
const unavailable = platformatic.unavailable(thisNode());
(unavailable ? describe.skip : describe)(`review of the @platformatic/kafka adapter on a real broker${unavailable ? ` (${unavailable})` : ''}`, () => {
  let consumer: ConsumerPort | undefined;
  afterEach(async () => {
    await consumer?.disconnect();
    consumer = undefined;
  });

  /*
   * Expected: a handler that seeks its partition back (main-pipeline.ts:79 does, from the
   * first batch after a partition came back) reads it again from there: r0, r1 and r2 come.
   * Root cause: the real MessagesStream pushes a response's records one by one and emits
   * 'data' synchronously; the adapter runs the handler synchronously from the first of
   * them, so the seek lands mid-push; deliver() then queues r3..r5 (>= the sought 0) and
   * moves `next` past them, and the re-read r0..r2 are dropped as repeats
   * (platformatic-run.ts:145-147). Class: record lost. Fixed: the gate marks the records
   * pushed after the seek stale and the adapter does not deliver them.
   */
  it('reads a partition again from where a handler sought it back, while the stream is still pushing that fetch', async () => {
    const d = testDescriptor('rv', [1]);
    await createTopicsOf(d, 1);
    await produceAsAdmin(d.mainTopic, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'].map((value) => ({ key: 'k', value, partition: 0 })));
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.setOffsets({ groupId: d.groups.main, topic: d.mainTopic, partitions: [{ partition: 0, offset: '2' }] });
    await admin.disconnect();
    const handed: string[] = [];
    let sought = false;
    const c = (consumer = platformatic.port(ADMIN_USER).consumer(d.groups.main));
    await c.connect();
    await c.subscribe({ topics: [d.mainTopic], fromBeginning: true });
    await c.run({
      eachBatch: async ({ topic, partition, messages, resolveOffset }) => {
        if (!sought) {
          sought = true;
          c.seek({ topic, partition, offset: '0' });
          return;
        }
        for (const m of messages) handed.push(m.value!.toString());
        resolveOffset(messages[messages.length - 1]!.offset);
      },
    });
    const deadline = Date.now() + 15_000;
    while (!handed.includes('r5') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2_000)); // anything still to come
    expect(handed.slice(0, 3)).toEqual(['r0', 'r1', 'r2']);
  });

  /*
   * Expected: partitions added to a topic the consumer reads are read too, within a few
   * metadata refreshes (kafkajs's group leader and librdkafka rejoin when a subscribed
   * topic's partition count changes; the client refreshes metadata every 5 s here).
   * Root cause: @platformatic/kafka 2.12.1's classic-protocol consumer joins again only on
   * a heartbeat error, a commit refused for the generation, or consume() of a new topic
   * (consumer.js:423, :959, :717, :1331); nothing watches partition counts, and the
   * adapter (platformatic.ts) adds nothing. In a stable group the new partitions stay
   * unassigned until some member joins or leaves: their records are never handed out, and
   * the group's lag for them is not even reported (no member owns them). Operators add
   * main-topic partitions (the brief's "partitions added to the main topic only").
   * Control (run by hand, not kept): the same steps on kafkajsPort with the consumer's
   * metadataMaxAge at 2 s read 'after' in 11.6 s; here 'after' is still unread 30 s on.
   * Class: consumer stopped (for the new partitions). Fixed: the adapter compares the
   * topics' partition counts at every metadata lookup of its fetch gate and calls the
   * client's joinGroup() when one grew (platformatic-partition-watch.ts).
   */
  it('reads a partition added to the main topic while it runs', async () => {
    const d = testDescriptor('rv', [1]);
    await createTopicsOf(d, 1);
    const seen: string[] = [];
    const c = (consumer = platformatic.port(ADMIN_USER).consumer(d.groups.main));
    await c.connect();
    await c.subscribe({ topics: [d.mainTopic], fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: 'before', partition: 0 }]);
    for (let deadline = Date.now() + 20_000; !seen.includes('before') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    expect(seen).toContain('before');
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.createPartitions({ topicPartitions: [{ topic: d.mainTopic, count: 2 }] });
    await admin.disconnect();
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: 'after', partition: 1 }]);
    for (let deadline = Date.now() + 30_000; !seen.includes('after') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 200));
    expect(seen).toContain('after');
  });
});
