import { Registry } from 'prom-client';
import type { KafkaPort, OutgoingMessage } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumerOptions } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/** No in-place retries: a failure goes straight to its tier. */
const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
const tier = consumer.tiers[0]!.topic;
/** Long enough for a commit interval (100 ms), far before the tier is due (1 min). */
const SOON = 1_000_500;

/**
 * The in-memory broker, with publish requests held until the test lets them through:
 * an acks=-1 round trip as long as the test wants.
 */
function setup(options: Partial<RetryingConsumerOptions> = {}) {
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const held: (() => void)[] = [];
  let open = false;
  const port = broker.port();
  const kafka: KafkaPort = {
    consumer: port.consumer,
    producer: () => {
      const producer = port.producer();
      const gated = async (records: { topic: string; messages: OutgoingMessage[] }[]) => {
        if (!open) await new Promise<void>((resolve) => held.push(resolve));
        await producer.sendBatch!(records);
      };
      return { ...producer, send: (record) => gated([record]), sendBatch: gated };
    },
  };
  const handled: string[] = [];
  const make = () =>
    createRetryingConsumer(consumer, {
      kafka,
      clock,
      registry: new Registry(),
      handler: async (record) => {
        if (record.topic !== consumer.mainTopic) return;
        handled.push(valueOf(record));
        if (valueOf(record).startsWith('bad')) throw httpError(503);
      },
      ...options,
    });
  const produce = (partition: number, ...values: string[]) => values.forEach((v) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(v), partition }));
  const committed = (partition: number) => broker.committedOffset(consumer.groups.main, consumer.mainTopic, partition);
  const inTier = () => broker.records(tier, 0).map((r) => r.value!.toString());
  return {
    clock,
    broker,
    handled,
    make,
    produce,
    committed,
    inTier,
    held,
    releaseOne: () => held.shift()?.(),
    openGate: () => {
      open = true;
      held.splice(0).forEach((release) => release());
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe('an unordered consumer with a publish in flight', () => {
  it('runs the later records of its partition and the other partitions meanwhile, and commits no further than the unacknowledged record', async () => {
    const s = setup();
    s.produce(0, 'a', 'bad', 'b', 'c');
    s.produce(1, 'x', 'y');
    const retrying = s.make();
    await retrying.start();
    await s.broker.run({ until: SOON });
    expect(s.held).toHaveLength(1);
    expect(s.handled.sort()).toEqual(['a', 'b', 'bad', 'c', 'x', 'y']);
    expect(s.committed(0)).toBe(1);
    expect(s.committed(1)).toBe(2);
    s.openGate();
    await s.broker.run({ until: SOON });
    expect(s.inTier()).toEqual(['bad']);
    expect(s.committed(0)).toBe(4);
    await retrying.stop();
  });

  it('sends the failures of several partitions made during one round trip in one request', async () => {
    const s = setup();
    s.produce(0, 'bad-0', 'bad-1');
    s.produce(1, 'bad-2', 'bad-3');
    const retrying = s.make();
    await retrying.start();
    await s.broker.run({ until: SOON });
    expect(s.held).toHaveLength(1);
    s.releaseOne();
    await settle();
    expect(s.held).toHaveLength(1);
    s.openGate();
    await s.broker.run({ until: SOON });
    expect([...s.inTier(), ...s.broker.records(tier, 1).map((r) => r.value!.toString())].sort()).toEqual(['bad-0', 'bad-1', 'bad-2', 'bad-3']);
    expect([s.committed(0), s.committed(1)]).toEqual([2, 2]);
    await retrying.stop();
  });

  it('waits in stop() for the publish in flight and commits past the record once it is acknowledged', async () => {
    const s = setup();
    s.produce(0, 'a', 'bad', 'b');
    const retrying = s.make();
    await retrying.start();
    await s.broker.run({ until: SOON });
    expect(s.committed(0)).toBe(1);
    let stopped = false;
    const stopping = retrying.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    s.openGate();
    await stopping;
    expect(s.inTier()).toEqual(['bad']);
    expect(s.committed(0)).toBe(3);
  });

  it('holds a partition at its limit of unacknowledged publishes until one is acknowledged', async () => {
    const s = setup({ maxPublishesInFlight: 2 });
    s.produce(0, 'bad-0', 'bad-1', 'bad-2', 'd');
    const retrying = s.make();
    await retrying.start();
    // The partition waits on an acknowledgement, which the simulator sees as no work left.
    await expect(s.broker.run({ until: SOON })).rejects.toThrow('stuck');
    expect(s.handled).toEqual(['bad-0', 'bad-1']);
    s.openGate();
    await s.broker.run({ until: SOON });
    expect(s.handled).toEqual(['bad-0', 'bad-1', 'bad-2', 'd']);
    expect(s.committed(0)).toBe(4);
    await retrying.stop();
  });

  it('does not commit a partition lost in a rebalance when its publish is acknowledged afterwards; its records run again', async () => {
    const s = setup();
    s.produce(0, 'a', 'bad', 'b');
    const first = s.make();
    await first.start();
    await s.broker.run({ until: SOON });
    expect(s.committed(0)).toBe(1);
    s.broker.rebalance(consumer.groups.main);
    s.openGate();
    await settle();
    await first.stop();
    expect(s.inTier()).toEqual(['bad']);
    expect(s.committed(0)).toBe(1);
    s.handled.length = 0;
    const second = s.make();
    await second.start();
    await s.broker.run({ until: SOON });
    expect(s.handled).toEqual(['bad', 'b']);
    expect(s.committed(0)).toBe(3);
    await second.stop();
  });

  it('heartbeats every second through a long batch of slow records, as kafkajs did between records', async () => {
    let clock!: VirtualClock;
    const s = setup({ handler: () => clock.sleep(400) });
    clock = s.clock;
    s.produce(0, ...Array.from({ length: 10 }, (_, i) => `slow-${i}`));
    const retrying = s.make();
    await retrying.start();
    await s.broker.run({ until: 1_004_500 });
    expect(s.committed(0)).toBe(10);
    // 4 s of records: one heartbeat a second, not one per record.
    expect(s.broker.heartbeats).toBeGreaterThanOrEqual(3);
    expect(s.broker.heartbeats).toBeLessThanOrEqual(4);
    await retrying.stop();
  });

  it('ends a batch of slow records after a second, so the client fetches at least once a second (the Confluent client otherwise seeks its partitions back and records run again)', async () => {
    const s = setup();
    const { clock } = s;
    const batchStarts: number[] = [];
    s.produce(0, ...Array.from({ length: 100 }, (_, i) => `slow-${i}`));
    const retrying = createRetryingConsumer(consumer, {
      kafka: {
        producer: () => s.broker.port().producer(),
        consumer: (groupId, options) => {
          const inner = s.broker.port().consumer(groupId, options);
          const started = inner.run.bind(inner);
          inner.run = (runOptions) =>
            started('eachBatch' in runOptions ? { ...runOptions, eachBatch: (batch) => (batchStarts.push(clock.now()), runOptions.eachBatch(batch)) } : runOptions);
          return inner;
        },
      },
      clock,
      registry: new Registry(),
      handler: () => clock.sleep(90),
    });
    await retrying.start();
    await s.broker.run({ until: 1_000_000 + 12_000 });
    expect(s.committed(0)).toBe(100);
    // 9 s of records: a fetch (a new batch) at least once a second, not one batch of 100.
    const gaps = batchStarts.slice(1).map((at, i) => at - batchStarts[i]!);
    expect(batchStarts.length).toBeGreaterThanOrEqual(9);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(1_100);
    await retrying.stop();
  });
});
