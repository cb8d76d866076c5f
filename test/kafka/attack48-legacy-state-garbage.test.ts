import { randomUUID } from 'node:crypto';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { encodeParkState, keyHash } from '../../src/runtime/park-state';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { KafkaPort } from '../../src/runtime/port';
import { eventually } from '../helpers/eventually';
import { commitAsKafkajsMember } from '../helpers/kafkajs-member-commits';
import { confluentKafka, createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { sleep } from '../helpers/suite-broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(3 * 60_000);

/**
 * The park state of an earlier release (krt-parked/1, written by its kafkajs adapter without a
 * NUL): order-42's record at offset 0 went to the tier and holds the key, its records 1 to 5 are
 * parked behind it, the position is 6, the commit at 1. 40 bytes: a multiple of 16 plus 8, so
 * the copy librdkafka makes of it (malloc(40), no NUL) ends exactly at the next heap chunk's
 * size field, whose low byte is never 0 (PREV_INUSE).
 */
const KEY = 'order-42';
const LEGACY = encodeParkState({ position: 6n, held: new Map([[keyHash(Buffer.from(KEY)), 0n]]), parked: new Map([1n, 2n, 3n, 4n, 5n].map((o) => [o, keyHash(Buffer.from(KEY))])) })
  .replace(/^krt-parked\/2 /, 'krt-parked/1 ')
  .replace(/ \.$/, '');

/** Commits `metadata` at `offset` on partition 0 of `topic` for `groupId`, as an earlier release's kafkajs member did. */
const commitAsKafkajs = (groupId: string, topic: string, offset: string, metadata: string) => commitAsKafkajsMember(groupId, topic, [{ partition: 0, offset, metadata }]);

/**
 * Attack 48: the Confluent reader re-read an earlier release's park state through the dependent
 * admin's fetchOffsets (librdkafka's ListConsumerGroupOffsets), taken to answer "metadata as
 * stored". It did not: the client's native layer reads the admin result's metadata as a C string
 * (src/common.cc, `Nan::New<v8::String>(static_cast<const char*>(partition->metadata))`, ignoring
 * `metadata_size`), and librdkafka's copy of it has no NUL after it. This 40-byte state (written
 * by kafkajs with no NUL) came back with a heap byte after it on every read (`...1!\u0006`,
 * `...1A`), read as lost, and order-42's parked records ran at once, before its retry: per-key
 * order broken by a move from the earlier release to the Confluent client.
 *
 * Fixed (confluent-group-reader.ts): nothing on this client reads such a state whole (the admin's
 * read runs past it, and its coordinator request aborted the process: attack48-legacy-read-outage),
 * so a legacy state with more than its position in it is refused, and the partition waits, saying
 * how to move the group: run this release on kafkajs until the state is written again in the
 * current format. The second case walks that path.
 */
describe('attack 48: an earlier release\u2019s park state read on the Confluent client', () => {
  it('is refused by the reader, read after read, with the way to move the group: never read with the heap bytes after it', async () => {
    const topic = `a48-legacy-garbage-${randomUUID().slice(0, 8)}`;
    const groupId = `g-${randomUUID().slice(0, 8)}`;
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1 }]);
    await admin.disconnect();
    await produceAsAdmin(topic, Array.from({ length: 6 }, (_, i) => ({ key: KEY, value: String(i), partition: 0 })));
    await commitAsKafkajs(groupId, topic, '1', LEGACY);
    const port = confluentPort(confluentKafka(ADMIN_USER)).consumer(groupId);
    try {
      const answers: string[] = [];
      for (let tries = 0; answers.length < 20 && tries < 100; tries++) {
        const answer = await port.committed(topic, [0]).then(
          (read) => JSON.stringify(read),
          (error: unknown) => (String(error).includes('earlier release') ? String(error) : undefined),
        );
        if (answer === undefined) await sleep(250);
        else answers.push(answer);
      }
      process.stdout.write(`stored: ${JSON.stringify(LEGACY)}\nread:   ${[...new Set(answers)].join('\n        ')}\n`);
      expect(new Set(answers)).toEqual(new Set([`LegacyParkStateError: ${topic}-0 holds a park state of an earlier release (krt-parked/1) with more than its position in it (keys in retry, parked records, marks), which @confluentinc/kafka-javascript cannot read whole: run this release on kafkajs (kafkajsPort) until every partition has taken a record, so its state is written again in the current format, then move to confluentPort`]));
      expect(answers).toHaveLength(20);
    } finally {
      await port.disconnect().catch(() => undefined);
    }
  });

  it('keeps the key held and its parked records waiting, on the Confluent client, then on kafkajs, which writes the state again, then on the Confluent client', async () => {
    const base = testDescriptor('a48-legacy-state', [2]);
    const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
    await createTopicsOf(d, 1);
    await produceAsAdmin(d.mainTopic, [
      ...Array.from({ length: 6 }, (_, i) => ({ key: KEY, value: String(i), partition: 0 })),
      { key: 'order-7', value: 'x', partition: 0 },
    ]);
    // The earlier release ran order-42's record 0 into the tier (its retry still to come) and parked 1 to 5; then it was upgraded.
    await commitAsKafkajs(d.groups.main, d.mainTopic, '1', LEGACY);
    const handled: string[] = [];
    const events: string[] = [];
    const run = async (kafka: KafkaPort, settle: () => boolean) => {
      const consumer = createRetryingConsumer(d, {
        kafka,
        onEvent: (e) => void (e.type !== 'processed' && events.push(`${e.type}${'metadata' in e ? ` ${String(e.metadata)}` : ''}`)),
        handler: async (record) => void handled.push(`${record.message.key?.toString()}:${record.message.value?.toString()}`),
      });
      try {
        await consumer.start();
        await eventually('the consumer to settle', () => (settle() ? true : undefined), 60_000);
        await sleep(3_000);
      } finally {
        await consumer.stop().catch(() => undefined);
      }
    };
    const confluent = () => confluentPort(confluentKafka(ADMIN_USER), { consumerConfig: { sessionTimeout: 10_000 } });
    // Refused: the partition waits (order-7's record too: it comes after the state's commit).
    const waited = Date.now();
    await run(confluent(), () => Date.now() - waited > 10_000);
    expect(handled).toEqual([]);
    // kafkajs reads the state whole, runs order-7 and writes the state again in the current format.
    await run(kafkajsPort(kafkaAsAdmin(), { consumerConfig: { sessionTimeout: 10_000 } }), () => handled.includes('order-7:x'));
    expect(handled).toEqual(['order-7:x']);
    const [stored] = await kafkajsPort(kafkaAsAdmin()).consumer(d.groups.main).committed(d.mainTopic, [0]);
    expect(stored?.metadata).toMatch(/^krt-parked\/2 /);
    // Then the Confluent client reads it: order-42's records still wait for its retry.
    const movedAt = Date.now();
    await run(confluent(), () => Date.now() - movedAt > 10_000);
    process.stdout.write(`handled: ${handled.join(' ')}\nevents: ${events.join(' | ')}\n`);
    expect(handled).toEqual(['order-7:x']);
    expect(events.filter((e) => e.startsWith('park-state-lost'))).toEqual([]);
  });
});
