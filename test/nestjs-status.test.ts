import { ConsumerStatus, isHealthy } from '../src/nestjs/consumer-status';
import type { ConsumedRecord } from '../src/runtime';

const record = (topic: string, partition: number, offset: string): ConsumedRecord => ({ topic, partition, message: { key: null, value: null, offset, timestamp: '0' } });

describe("a consumer's status, as the health indicator reports it", () => {
  let now = 1_000;
  const status = () => new ConsumerStatus(() => now);

  it('is unhealthy until the consumer has started, and again once it stops', () => {
    const s = status();
    expect(isHealthy(s.health())).toBe(false);
    s.setConnected(true);
    expect(isHealthy(s.health())).toBe(true);
    s.setConnected(false);
    expect(s.health().connected).toBe(false);
  });

  it('reports a refused publish from its first failure until the record is routed, and is unhealthy meanwhile', () => {
    const s = status();
    s.setConnected(true);
    s.observe({ type: 'publish-failed', record: record('orders', 2, '41'), error: new Error('Not authorized to access topics: [orders.dlq]'), retryInMs: 200, destination: { kind: 'dlq', attempt: 1, reason: 'permanent' }, reason: 'not-authorized' });
    now = 5_000;
    s.observe({ type: 'publish-failed', record: record('orders', 2, '41'), error: new Error('Not authorized to access topics: [orders.dlq]'), retryInMs: 400, destination: { kind: 'dlq', attempt: 1, reason: 'permanent' }, reason: 'not-authorized' });
    expect(s.health().publishFailing).toEqual({ since: new Date(1_000).toISOString(), topic: 'orders', partition: 2, offset: '41', error: 'Not authorized to access topics: [orders.dlq]' });
    expect(isHealthy(s.health())).toBe(false);

    s.observe({ type: 'routed', record: record('orders', 2, '41'), attempt: 1, error: new Error('x'), destination: { kind: 'dlq', attempt: 1, reason: 'permanent' } });
    expect(s.health().publishFailing).toBeUndefined();
    expect(isHealthy(s.health())).toBe(true);
  });

  it('lists a tier partition as waiting until its head record is due, without making the consumer unhealthy', () => {
    const s = status();
    s.setConnected(true);
    now = 10_000;
    s.observe({ type: 'waiting', topic: 'orders.retry.1m', partition: 0, dueAt: 70_000 });
    expect(s.health().waitingPartitions).toEqual(['orders.retry.1m/0']);
    expect(isHealthy(s.health())).toBe(true);
    now = 70_001;
    expect(s.health().waitingPartitions).toEqual([]);
  });

  it("lists a park-by-key partition whose parking is full until a record of that partition completes", () => {
    const s = status();
    s.observe({ type: 'parking-full', topic: 'orders', partition: 1, keys: 200, parked: 30 });
    s.observe({ type: 'processed', record: record('orders.retry.1m', 11, '3'), attempt: 2, parked: false });
    expect(s.health().parkingFullPartitions).toEqual(['orders/1']);
    s.observe({ type: 'processed', record: record('orders.retry.1m', 1, '3'), attempt: 2, parked: false });
    expect(s.health().parkingFullPartitions).toEqual([]);
  });

  it("carries the DLQ monitor's last reading, and its error without losing the reading", () => {
    const s = status();
    now = 2_000;
    s.observeDlq({ dlqSize: 3, dlqExpired: 0, oldestUnhandledAt: 1_500, tierLag: {} });
    s.observeDlqError(new Error('Not authorized to access group'));
    expect(s.health().dlq).toEqual({ size: 3, oldestUnhandledAt: new Date(1_500).toISOString(), polledAt: new Date(2_000).toISOString(), error: 'Not authorized to access group' });
  });
});
