import { HEADERS, SPRING_DLT_HEADERS, SPRING_RETRY_TOPIC_HEADERS } from '../../src/naming/headers';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { createRetryingConsumer, RESTART_REFUSED } from '../../src/runtime/retrying-consumer';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from '../../src/runtime/spring-headers';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { harness, httpError, valueOf } from './harness';

const T0 = 1_000_000;
const consumer = billingDescriptor();
const [tier1m, , tier1h] = consumer.tiers;
/** Enough steps for every scenario here; a consumer that loops on a record exhausts them and fails the test. */
const STEPS = { maxSteps: 5_000 };

describe('no record and no thrown value can stop a consumer', () => {
  it('sends a tier record whose x-original-offset does not fit a Kafka offset to the DLQ, with x+spring headers', async () => {
    const d = billingDescriptor({ headerStyle: 'x+spring' });
    const h = harness(d, async () => {
      throw httpError(503);
    });
    const huge = '9999999999999999999'; // 19 digits, above 2^63-1
    h.broker.append(tier1h!.topic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, headers: { [HEADERS.originalOffset]: huge, [HEADERS.dueAt]: String(T0) } });
    await h.retrying.start();
    await h.broker.run(STEPS);
    const [dead] = h.broker.records(d.dlqTopic);
    expect(dead).toBeDefined();
    expect(decodeSpringDltHeaders(dead!.headers).originalTopic).toBe(d.mainTopic);
    expect(h.broker.committedOffset(d.groups.retry, tier1h!.topic, 0)).toBe(1);
  });

  it('routes a main record whose timestamp is near 2^63, with x+spring headers, and leaves the unrepresentable timestamp out', async () => {
    const d = billingDescriptor({ headerStyle: 'x+spring' });
    const h = harness(d, async () => {
      throw new SyntaxError('bad json');
    });
    h.broker.append(d.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, timestamp: 2 ** 63 });
    await h.retrying.start();
    await h.broker.run(STEPS);
    const [dead] = h.broker.records(d.dlqTopic);
    expect(dead!.headers[SPRING_DLT_HEADERS.originalTimestamp]).toBeUndefined();
    expect(dead!.headers[HEADERS.originalTimestamp]).toBeUndefined();
    expect(h.broker.committedOffset(d.groups.main, d.mainTopic, 0)).toBe(1);
  });

  it.each([
    ['a null-prototype object', () => Object.create(null)],
    ['an Error whose message is a number', () => Object.assign(new Error(), { message: 42 })],
    ['an object whose name getter throws', () => ({ get name(): string { throw new Error('getter'); }, message: 'm' })],
    ['a symbol', () => Symbol('boom')],
    ['a BigInt', () => 10n ** 30n],
    ['a cyclic object', () => { const o: Record<string, unknown> = { message: 'cyclic' }; o.self = o; return o; }],
  ])('routes a record whose handler throws %s, and keeps the partition flowing', async (_what, thrown) => {
    const h = harness(billingDescriptor({ headerStyle: 'x+spring', tiers: [] }), async (record) => {
      if (valueOf(record) === 'poison') throw thrown();
    });
    ['a', 'poison', 'b'].forEach((v) => h.produce('k', v));
    await h.retrying.start();
    await h.broker.run(STEPS);
    expect(h.broker.records(consumer.dlqTopic).map((r) => r.value?.toString())).toEqual(['poison']);
    expect(typeof decodeRetryHeaders(h.broker.records(consumer.dlqTopic)[0]!.headers).errorMessage).toBe('string');
    expect(h.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(3);
  });

  it('treats a classify option that throws as declining, so the default table decides', async () => {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      classify: () => {
        throw new Error('classifier bug');
      },
      handler: async () => {
        throw new SyntaxError('bad json');
      },
    });
    broker.append(consumer.mainTopic, { key: null, value: Buffer.from('v'), partition: 0 });
    await retrying.start();
    await broker.run(STEPS);
    expect(broker.records(consumer.dlqTopic)).toHaveLength(1);
  });

  it('lets no listener error change a record’s fate: a handled record is not retried', async () => {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      handler: async () => {},
      onEvent: () => {
        throw new Error('logger down');
      },
    });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0 });
    await retrying.start();
    await broker.run(STEPS);
    expect(broker.records(tier1m!.topic)).toHaveLength(0);
    expect(broker.records(consumer.dlqTopic)).toHaveLength(0);
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(1);
  });
});

describe('heartbeats during long waits on one record', () => {
  it('heartbeats at least every second while the DLQ refuses writes for minutes', async () => {
    const h = harness(consumer, async () => {
      throw new TypeError('x is undefined');
    });
    h.broker.refuseWrites(consumer.dlqTopic, 10);
    h.produce('k', 'poison');
    await h.retrying.start();
    await h.broker.run(STEPS);
    const waited = h.clock.now() - T0;
    expect(waited).toBeGreaterThan(60_000);
    expect(h.broker.heartbeats).toBeGreaterThanOrEqual(Math.floor(waited / 1_000));
    expect(h.broker.records(consumer.dlqTopic)).toHaveLength(1);
  });
});

describe('stop() and start()', () => {
  it('leaves no timer behind when the final commit fails, and refuses a second start() with a clear error', async () => {
    const h = harness(consumer, async () => {});
    h.produce('k', 'v');
    await h.retrying.start();
    h.broker.refuseCommits(consumer.groups.main, 1_000);
    await h.broker.run({ until: T0, maxSteps: 100 }).catch(() => undefined);
    await h.retrying.stop();
    expect(h.clock.hasTimers()).toBe(false);
    expect(h.events.some((e) => e.type === 'commit-failed')).toBe(true);
    await expect(h.retrying.start()).rejects.toThrow(RESTART_REFUSED);
  });
});

/** A virtual clock that, like Node's setTimeout, runs a timer longer than 2^31-1 ms after 1 ms. */
class NodeLikeClock extends VirtualClock {
  override setTimer(ms: number, fn: () => void): () => void {
    return super.setTimer(ms > 2 ** 31 - 1 ? 1 : ms, fn);
  }
}

describe('waiting for a tier record', () => {
  it('waits out a 30-day tier with a few long timers, not a hot loop, and runs the record when due', async () => {
    const d = billingDescriptor({ tiers: [{ index: 1, topic: 'orders.confirmed.retry.30d', delayMs: 30 * 86_400_000, label: '30d' }] });
    const clock = new NodeLikeClock(T0);
    const broker = new MemoryBroker(clock);
    for (const topic of [d.mainTopic, d.tiers[0]!.topic, d.dlqTopic]) broker.createTopic(topic, 1);
    const starts: number[] = [];
    const waits: number[] = [];
    const retrying = createRetryingConsumer(d, {
      kafka: broker.port(),
      clock,
      handler: async (record) => {
        if (record.topic === d.mainTopic) throw httpError(503);
        starts.push(clock.now());
      },
      onEvent: (e) => void (e.type === 'waiting' && waits.push(e.dueAt)),
    });
    broker.append(d.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0 });
    await retrying.start();
    await broker.run(STEPS);
    expect(starts).toEqual([T0 + 30 * 86_400_000]);
    expect(waits).toHaveLength(1);
  });

  it('never runs a tier record early when its timestamp is -1 but its x-due-at is valid', async () => {
    const starts: number[] = [];
    const h = harness(consumer, async (_record, clock) => void starts.push(clock.now()));
    h.broker.append(tier1m!.topic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, timestamp: -1, headers: { [HEADERS.dueAt]: String(T0 + 30_000) } });
    await h.retrying.start();
    await h.broker.run(STEPS);
    expect(starts).toEqual([T0 + 30_000]);
  });

  it('holds a tier partition no longer than the tier delay after first reading a record stamped a year ahead', async () => {
    const starts: number[] = [];
    const h = harness(consumer, async (_record, clock) => void starts.push(clock.now()));
    h.broker.append(tier1m!.topic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, timestamp: T0 + 365 * 86_400_000 });
    await h.retrying.start();
    await h.broker.run(STEPS);
    expect(starts).toEqual([T0 + tier1m!.delayMs]);
  });
});

describe('a destination partition that does not exist', () => {
  it('publishes an unordered record with the default partitioner, counts the failure, and keeps other partitions flowing', async () => {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    broker.createTopic(consumer.mainTopic, 3); // grown by an operator; the tiers and the DLQ were not
    for (const topic of [...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
    const handled: string[] = [];
    const failures: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      handler: async (record) => {
        if (record.topic === consumer.mainTopic && valueOf(record) === 'flaky') throw httpError(503);
        handled.push(`${record.topic}:${valueOf(record)}`);
      },
      onEvent: (e) => void (e.type === 'publish-failed' && failures.push(e.reason)),
      registry: undefined,
    });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('flaky'), partition: 2 });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('a'), partition: 0 });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('b'), partition: 1 });
    await retrying.start();
    await broker.run(STEPS);
    expect(handled).toEqual(expect.arrayContaining([`${consumer.mainTopic}:a`, `${consumer.mainTopic}:b`, `${tier1m!.topic}:flaky`]));
    expect(failures).toEqual(['unknown-partition']);
    expect(await retrying.metrics.registry.metrics()).toContain(
      'kafka_retry_publish_failures_total{consumer="billing-order-confirmed",destination="1m",reason="unknown-partition"} 1',
    );
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 2)).toBe(1);
  });
});

describe('headers describe the original main-topic record (Spring interop)', () => {
  it("writes the main record's timestamp into x-original-timestamp and kafka_dlt-original-timestamp after the whole ladder", async () => {
    const d = billingDescriptor({ headerStyle: 'x+spring' });
    const h = harness(d, async () => {
      throw httpError(503);
    });
    h.broker.append(d.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, timestamp: 123_456 });
    await h.retrying.start();
    await h.broker.run(STEPS);
    const [dead] = h.broker.records(d.dlqTopic);
    expect(decodeRetryHeaders(dead!.headers)).toMatchObject({ originalTimestamp: 123_456, originalOffset: '0', attempt: 4 });
    expect(decodeSpringDltHeaders(dead!.headers)).toMatchObject({ originalTimestamp: 123_456, originalOffset: '0', originalPartition: 0, consumerGroup: d.groups.retry });
    expect(dead!.headers[HEADERS.dueAt]).toBeUndefined();
  });

  it("writes @RetryableTopic's layout on tier and DLQ records with the x+spring-retry-topic style", async () => {
    const d = billingDescriptor({ headerStyle: 'x+spring-retry-topic', tiers: [tier1m!] });
    const h = harness(d, async () => {
      throw httpError(503);
    });
    h.broker.append(d.mainTopic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 1, timestamp: 999 });
    await h.retrying.start();
    await h.broker.run(STEPS);
    const [retry] = h.broker.records(tier1m!.topic, 1);
    expect(decodeSpringRetryTopicHeaders(retry!.headers)).toMatchObject({
      originalTopic: d.mainTopic, originalPartition: 1, originalOffset: '0', originalTimestamp: 999,
      retryOriginalTimestamp: 999, attempts: 2, backoffTimestamp: T0 + 60_000, exceptionFqcn: 'HTTPError',
    });
    const [dead] = h.broker.records(d.dlqTopic, 1);
    expect(decodeSpringRetryTopicHeaders(dead!.headers)).toMatchObject({ originalOffset: '0', originalTimestamp: 999, attempts: 3, backoffTimestamp: T0 + 60_000 });
    expect(Object.keys(dead!.headers)).toEqual(expect.arrayContaining([SPRING_RETRY_TOPIC_HEADERS.retryAttempts]));
    expect(Object.keys(dead!.headers).filter((name) => name.startsWith('kafka_dlt-') && name !== SPRING_RETRY_TOPIC_HEADERS.originalConsumerGroup)).toEqual([]);
  });
});
