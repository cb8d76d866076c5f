import { Registry } from 'prom-client';
import { refusingSeeks } from './refusing-seeks-port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/**
 * h147: attack 18's class again, in main-pipeline.ts readNewLogById. A batch of another topic id
 * is judged a new log by LogIds.seen(), which records the new id at once; the partition is then
 * started over and dropped (startOver, partitions.delete) BEFORE the seek to the new log's start.
 * A refused seek (the Confluent client while it rejoins, kafkajs while its consumer restarts)
 * throws out of eachBatch; the client hands the batch out again from its start (the old log's
 * position on the new log), and that batch names the id now taken for the partition's own
 * ('same') and finds no progress: a fresh partition begins there, past the new log's first
 * records. LOST: n0..n4 never run, not even after a restart (their commit passed them).
 *
 * Fixed (d4b26bd): the batch is judged without taking its id (LogIds.verdict) and sought first;
 * the id is taken and the partition started over only once the seek is done. Park-by-key's main
 * path the same way: a failed operation drops the partition's state, so the record handed out
 * again is judged by the generation its id was taken in, not by a state read in this one.
 */

const OLD = ['o0', 'o1', 'o2', 'o3', 'o4'];
const NEW = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

describe.each([
  ['unordered', 'kafkajs'],
  ['unordered', 'confluent'],
  ['park-by-key', 'kafkajs'],
  ['park-by-key', 'confluent'],
] as const)('%s, topic ids fetch, %s reaction: the main topic created again, the seek to the new log\'s start refused once', (ordering, reaction) => {
  it('runs every record of the new log', async () => {
    const consumer = billingDescriptor({ ordering });
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = reaction;
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const refusal = { offset: '0', times: 0, refused: 0 };
    const ran: string[] = [];
    const start = async () => {
      const retrying = createRetryingConsumer(consumer, {
        kafka: refusingSeeks(broker.port({ topicIds: 'fetch' }), refusal),
        clock,
        registry: new Registry(),
        random: () => 0.5,
        commit: { intervalMs: 1_000, maxRecords: 1_000 },
        handler: async (record: ConsumedRecord) => void ran.push(valueOf(record)),
      });
      await retrying.start();
      return retrying;
    };
    const produce = (values: string[]) => {
      for (const value of values) broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });
    };
    const run = (ms: number) => broker.run({ until: clock.now() + ms, maxSteps: 5_000 });
    let retrying = await start();
    produce(OLD);
    await run(10_000); // the old log ran, its commit acknowledged
    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    produce(NEW);
    refusal.times = 1; // the client refuses the next seek to 0 once
    await run(10_000);
    await retrying.stop();
    retrying = await start();
    await run(10_000);
    await retrying.stop();
    expect(refusal.refused).toBe(1);
    expect(NEW.filter((n) => !ran.includes(n))).toEqual([]);
  });
});
