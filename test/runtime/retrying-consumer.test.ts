import { HEADERS } from '../../src/naming/headers';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { billingDescriptor } from './descriptor';
import { harness, httpError, valueOf } from './harness';

const consumer = billingDescriptor();
const [tier1m, tier10m, tier1h] = consumer.tiers;

describe('the retrying consumer on the in-memory broker', () => {
  it('does not let a poison record hold back the records after it on its partition', async () => {
    const handled: string[] = [];
    const h = harness(consumer, async (record, clock) => {
      if (valueOf(record) === 'poison') throw new SyntaxError('Unexpected token');
      handled.push(`${valueOf(record)}@${clock.now()}`);
    });
    ['a', 'poison', 'b', 'c'].forEach((v) => h.produce('k', v));
    await h.retrying.start();
    await h.broker.run();
    expect(handled).toEqual(['a@1000000', 'b@1000000', 'c@1000000']);
    expect(h.broker.records(consumer.dlqTopic).map((r) => r.value?.toString())).toEqual(['poison']);
    expect(h.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(4);
  });

  it('walks a transient failure up the whole ladder into the DLQ, never before a tier is due', async () => {
    const starts: { topic: string; at: number }[] = [];
    const h = harness(consumer, async (record, clock) => {
      starts.push({ topic: record.topic, at: clock.now() });
      throw httpError(503, 'payment-svc 503');
    });
    h.produce('order-44', 'created');
    await h.retrying.start();
    await h.broker.run();
    expect(starts).toEqual([
      { topic: consumer.mainTopic, at: 1_000_000 },
      { topic: tier1m!.topic, at: 1_000_000 + 60_000 },
      { topic: tier10m!.topic, at: 1_060_000 + 600_000 },
      { topic: tier1h!.topic, at: 1_660_000 + 3_600_000 },
    ]);
    const [dead] = h.broker.records(consumer.dlqTopic);
    expect(dead!.key?.toString()).toBe('order-44');
    expect(dead!.value?.toString()).toBe('created');
    expect(decodeRetryHeaders(dead!.headers)).toMatchObject({
      attempt: 4,
      firstFailedAt: 1_000_000,
      originalTopic: consumer.mainTopic,
      originalPartition: 0,
      originalOffset: '0',
      errorClass: 'HTTPError',
      errorMessage: 'payment-svc 503',
    });
    expect(h.events.filter((e) => e.type === 'waiting').every((e) => e.type === 'waiting' && e.dueAt > 0)).toBe(true);
  });

  it('writes x-attempt and x-due-at on each tier record and keeps its partition', async () => {
    const h = harness(consumer, async () => {
      throw httpError(503);
    });
    h.produce('order-1', 'v', 1);
    await h.retrying.start();
    await h.broker.run({ until: 1_000_000 });
    const [first] = h.broker.records(tier1m!.topic, 1);
    expect(first!.headers[HEADERS.attempt]).toBe('2');
    expect(first!.headers[HEADERS.dueAt]).toBe(String(1_000_000 + 60_000));
    expect(h.broker.records(tier1m!.topic, 0)).toHaveLength(0);
  });

  it('sends permanent errors to the DLQ with attempt 1 and retries nothing', async () => {
    let calls = 0;
    const h = harness(consumer, async () => {
      calls++;
      throw Object.assign(new Error('invalid'), { name: 'ZodError', issues: [] });
    });
    h.produce('order-43', 'bad-schema');
    await h.retrying.start();
    await h.broker.run();
    expect(calls).toBe(1);
    expect(h.broker.records(tier1m!.topic)).toHaveLength(0);
    expect(h.broker.records(consumer.dlqTopic)[0]!.headers[HEADERS.attempt]).toBe('1');
  });

  it('retries short transient errors in place with backoff before routing (R14)', async () => {
    const attemptsAt: number[] = [];
    const h = harness(consumer, async (_record, clock) => {
      attemptsAt.push(clock.now());
      if (attemptsAt.length < 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    h.produce('k', 'v');
    await h.retrying.start();
    await h.broker.run();
    // backoff 100ms then 200ms, each shortened by jitter 0.5 × random 0.5.
    expect(attemptsAt).toEqual([1_000_000, 1_000_075, 1_000_225]);
    expect(h.broker.records(tier1m!.topic)).toHaveLength(0);
  });

  it('leaves a record uncommitted while the DLQ refuses writes, and loses nothing when it accepts them again', async () => {
    const h = harness(consumer, async (record) => {
      if (valueOf(record) === 'poison') throw new TypeError('x is undefined');
    });
    h.broker.refuseWrites(consumer.dlqTopic, 3);
    h.produce('k', 'poison');
    h.produce('k', 'fine');
    await h.retrying.start();
    await h.broker.run();
    expect(h.events.filter((e) => e.type === 'publish-failed')).toHaveLength(3);
    expect(h.broker.records(consumer.dlqTopic).map((r) => r.value?.toString())).toEqual(['poison']);
    expect(h.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(2);
  });

  it('does not commit past a record whose publish never succeeded before stop', async () => {
    const h = harness(consumer, async () => {
      throw new TypeError('x is undefined');
    });
    h.broker.refuseWrites(consumer.dlqTopic, 1_000);
    h.produce('k', 'poison');
    await h.retrying.start();
    await h.broker.run({ until: 1_010_000, maxSteps: 200 }).catch(() => undefined);
    await h.retrying.stop();
    expect(h.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBeUndefined();
  });

  it('processes a tier record whose x-due-at is garbage no later than the tier delay after it was written', async () => {
    const processed: string[] = [];
    const h = harness(consumer, async (record, clock) => {
      processed.push(`${record.topic}@${clock.now()}`);
    });
    h.broker.append(tier1m!.topic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 0, headers: { [HEADERS.dueAt]: 'soon', [HEADERS.attempt]: '-3' } });
    h.broker.append(tier10m!.topic, { key: Buffer.from('k'), value: Buffer.from('w'), partition: 0, headers: { [HEADERS.dueAt]: '99999999999999' } });
    await h.retrying.start();
    await h.broker.run();
    expect(processed).toEqual([`${tier1m!.topic}@${1_000_000 + 60_000}`, `${tier10m!.topic}@${1_000_000 + 600_000}`]);
    expect(h.broker.committedOffset(consumer.groups.retry, tier1m!.topic, 0)).toBe(1);
    expect(h.broker.committedOffset(consumer.groups.retry, tier10m!.topic, 0)).toBe(1);
  });

  it('starts waiting tier partitions over after a rebalance, without processing early', async () => {
    const starts: number[] = [];
    const h = harness(consumer, async (record, clock) => {
      if (record.topic === consumer.mainTopic) throw httpError(503);
      starts.push(clock.now());
    });
    h.produce('k', 'v');
    await h.retrying.start();
    await h.broker.run({ until: 1_000_000 });
    h.broker.rebalance(consumer.groups.retry);
    await h.broker.run();
    expect(starts).toEqual([1_060_000]);
  });

  it('counts outcomes in the metrics the alerts query', async () => {
    const h = harness(consumer, async (record) => {
      if (valueOf(record) === 'bad') throw new SyntaxError('bad json');
    });
    h.produce('k', 'ok');
    h.produce('k', 'bad');
    await h.retrying.start();
    await h.broker.run();
    const text = await h.registry.metrics();
    expect(text).toContain('kafka_retry_messages_total{consumer="billing-order-confirmed",topic="orders.confirmed",outcome="success"} 1');
    expect(text).toContain('kafka_retry_messages_total{consumer="billing-order-confirmed",topic="orders.confirmed",outcome="dlq"} 1');
    expect(text).toContain('kafka_dlq_routed_total{consumer="billing-order-confirmed",error_class="permanent-data"} 1');
    expect(text).toContain('kafka_dlq_routed_total{consumer="billing-order-confirmed",error_class="transient-long"} 0');
  });
});
