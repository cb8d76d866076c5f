import { Registry } from 'prom-client';
import type { ConsumerPort, KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumerOptions } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/** No in-place retries: a failure goes straight to its tier. */
const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
const tier = consumer.tiers[0]!.topic;
const START = 1_000_000;
/** Long enough for a commit interval (100 ms), far before the tier is due (1 min). */
const SOON = START + 500;

/**
 * One partition on the in-memory broker, and a way to tell the consumer of a rebalance
 * without moving the partition's position: what the Confluent client does when it
 * resumes a partition where the last batch stopped rather than at the committed offset.
 */
function setup(options: Partial<RetryingConsumerOptions> = {}, onHandled: (value: string) => void = () => {}) {
  const clock = new VirtualClock(START);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const port = broker.port();
  let main: ConsumerPort | undefined;
  const rebalanceListeners: (() => void)[] = [];
  let sends = 0;
  const kafka: KafkaPort = {
    consumer: (groupId, consumerOptions) => {
      const created = port.consumer(groupId, consumerOptions);
      if (groupId !== consumer.groups.main) return created;
      main = created;
      const listen = created.onRebalance.bind(created);
      created.onRebalance = (listener) => {
        rebalanceListeners.push(listener);
        listen(listener);
      };
      return created;
    },
    producer: () => {
      const producer = port.producer();
      return {
        ...producer,
        send: async (record) => {
          sends++;
          return producer.send(record);
        },
        sendBatch: async (records) => {
          sends++;
          return producer.sendBatch!(records);
        },
      };
    },
  };
  const retrying = createRetryingConsumer(consumer, {
    kafka,
    clock,
    registry: new Registry(),
    handler: async (record) => {
      if (record.topic !== consumer.mainTopic) return;
      onHandled(valueOf(record));
      if (valueOf(record).startsWith('bad')) throw httpError(503);
    },
    ...options,
  });
  return {
    broker,
    retrying,
    produce: (...values: string[]) => values.forEach((v) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(v), partition: 0 })),
    committed: () => broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) ?? 0,
    inTier: () => broker.records(tier, 0).map((r) => r.value!.toString()),
    seek: (offset: number) => main!.seek({ topic: consumer.mainTopic, partition: 0, offset: String(offset) }),
    rebalanceInPlace: () => rebalanceListeners.forEach((listener) => listener()),
    /** The partition now belongs to another member: this one reads it no more. */
    loseMain: () => {
      broker.rebalance(consumer.groups.main);
      main!.pause([{ topic: consumer.mainTopic, partitions: [0] }]);
    },
    sends: () => sends,
  };
}

describe('a partition resumed after a rebalance or a seek, with a publish in flight', () => {
  it('never commits past the failed record when the client fetches again from a later offset', async () => {
    const s = setup();
    s.broker.batchSize = 2;
    s.broker.refuseWrites(tier, 1_000_000);
    s.produce('a', 'bad', 'b', 'c', 'd', 'e');
    await s.retrying.start();
    await s.broker.run({ until: SOON });
    expect(s.committed()).toBe(1);
    s.seek(3);
    await s.broker.run({ until: SOON + 1_000 });
    expect(s.committed()).toBe(1);
    await s.retrying.stop();
    expect(s.inTier()).toEqual([]);
    expect(s.committed()).toBe(1);
  });

  it('never commits past the failed record when a rebalance cuts a batch short and the partition resumes where it stopped', async () => {
    let rebalance = () => {};
    let triggered = false;
    const s = setup({}, (value) => {
      if (value !== 'trigger' || triggered) return;
      triggered = true;
      rebalance();
    });
    rebalance = s.rebalanceInPlace;
    s.broker.refuseWrites(tier, 1_000_000);
    s.produce('a', 'bad', 'b', 'trigger', 'c', 'd');
    await s.retrying.start();
    await s.broker.run({ until: SOON });
    expect(s.committed()).toBeLessThanOrEqual(1);
    await s.retrying.stop();
    expect(s.inTier()).toEqual([]);
    expect(s.committed()).toBeLessThanOrEqual(1);
  });

  it('ends a publish at the rebalance, reads its record again though the client resumed past it, and commits past it once published', async () => {
    let rebalance = () => {};
    const s = setup({}, (value) => value === 'trigger' && rebalance());
    rebalance = s.rebalanceInPlace;
    s.broker.refuseWrites(tier, 3);
    s.produce('a', 'bad', 'b', 'trigger', 'c', 'd');
    await s.retrying.start();
    await s.broker.run({ until: START + 30_000 });
    expect(s.inTier()).toEqual(['bad']);
    expect(s.committed()).toBe(6);
    await s.retrying.stop();
  });

  it('publishes each failed record once after an outage, however many rebalances took its records back meanwhile', async () => {
    const s = setup();
    s.produce('bad-0', 'bad-1', 'bad-2');
    s.broker.refuseWrites(tier, Number.MAX_SAFE_INTEGER);
    await s.retrying.start();
    let now = START;
    for (let i = 0; i < 10; i++) {
      now += 1_000;
      await s.broker.run({ until: now });
      s.broker.rebalance(consumer.groups.main);
    }
    s.broker.refuseWrites(tier, 0);
    await s.broker.run({ until: now + 120_000 });
    await s.retrying.stop();
    expect([...s.inTier()].sort()).toEqual(['bad-0', 'bad-1', 'bad-2']);
    expect(s.committed()).toBe(3);
  });

  it('ends the publish loops of a partition at its revocation: its new owner reads the record again', async () => {
    const s = setup();
    s.broker.refuseWrites(tier, Number.MAX_SAFE_INTEGER);
    s.produce('bad');
    await s.retrying.start();
    await s.broker.run({ until: START + 5_000 });
    const before = s.sends();
    expect(before).toBeGreaterThan(1);
    s.loseMain();
    await s.broker.run({ until: START + 120_000 });
    // At most the try in flight when the partition was revoked.
    expect(s.sends() - before).toBeLessThanOrEqual(1);
    await s.retrying.stop();
    expect(s.committed()).toBe(0);
  });
});
