import { attemptOf, resolveDestination } from '../../src/runtime/resolve';
import { billingDescriptor } from './descriptor';

const consumer = billingDescriptor();
const now = 1_000_000;
const fail = (topic: string, kind: Parameters<typeof resolveDestination>[1]['kind'], triesInPlace = 3) =>
  resolveDestination(consumer, { topic, kind, triesInPlace, now });

describe('the destination resolver', () => {
  it('walks a transient failure up the ladder, attempt by attempt, into the DLQ (R8)', () => {
    expect(fail('orders.confirmed', 'transient-long')).toEqual({ kind: 'tier', tier: consumer.tiers[0], attempt: 2, dueAt: now + 60_000 });
    expect(fail('orders.confirmed.retry.1m', 'transient-long')).toEqual({ kind: 'tier', tier: consumer.tiers[1], attempt: 3, dueAt: now + 600_000 });
    expect(fail('orders.confirmed.retry.10m', 'transient-long')).toEqual({ kind: 'tier', tier: consumer.tiers[2], attempt: 4, dueAt: now + 3_600_000 });
    expect(fail('orders.confirmed.retry.1h', 'transient-long')).toEqual({ kind: 'dlq', attempt: 4, reason: 'retries-exhausted' });
  });

  it('sends permanent errors to the DLQ at once, from any attempt', () => {
    expect(fail('orders.confirmed', 'permanent-data', 1)).toEqual({ kind: 'dlq', attempt: 1, reason: 'permanent' });
    expect(fail('orders.confirmed.retry.10m', 'permanent-code', 1)).toEqual({ kind: 'dlq', attempt: 3, reason: 'permanent' });
  });

  it('retries short transient errors in place first, then takes the ladder', () => {
    expect(fail('orders.confirmed', 'transient-short', 1)).toEqual({ kind: 'in-place', retry: 1 });
    expect(fail('orders.confirmed', 'transient-short', 2)).toEqual({ kind: 'in-place', retry: 2 });
    expect(fail('orders.confirmed', 'transient-short', 3)).toMatchObject({ kind: 'tier', attempt: 2 });
  });

  it('never retries long transient or permanent errors in place', () => {
    expect(fail('orders.confirmed', 'transient-long', 1).kind).toBe('tier');
    expect(fail('orders.confirmed', 'permanent-data', 1).kind).toBe('dlq');
  });

  it('gives ambiguous errors only their tiers, then the DLQ', () => {
    expect(fail('orders.confirmed', 'ambiguous')).toMatchObject({ kind: 'tier', attempt: 2 });
    expect(fail('orders.confirmed.retry.1m', 'ambiguous')).toMatchObject({ kind: 'tier', attempt: 3 });
    expect(fail('orders.confirmed.retry.10m', 'ambiguous')).toEqual({ kind: 'dlq', attempt: 3, reason: 'ambiguous-exhausted' });
  });

  it('retries only in place, then dead-letters, with in-place-only ordering', () => {
    const inPlaceOnly = billingDescriptor({ ordering: 'in-place-only', tiers: [] });
    expect(resolveDestination(inPlaceOnly, { topic: 'orders.confirmed', kind: 'transient-long', triesInPlace: 1, now })).toEqual({ kind: 'in-place', retry: 1 });
    expect(resolveDestination(inPlaceOnly, { topic: 'orders.confirmed', kind: 'transient-long', triesInPlace: 3, now })).toEqual({ kind: 'dlq', attempt: 1, reason: 'retries-exhausted' });
    expect(resolveDestination(inPlaceOnly, { topic: 'orders.confirmed', kind: 'permanent-data', triesInPlace: 1, now }).kind).toBe('dlq');
  });

  it('counts attempts from the topic a record was read from, never from its headers', () => {
    expect(attemptOf(consumer, 'orders.confirmed')).toBe(1);
    expect(attemptOf(consumer, 'orders.confirmed.retry.1h')).toBe(4);
    expect(attemptOf(consumer, 'something.else')).toBe(1);
  });
});
