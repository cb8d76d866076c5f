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

describe('the destination resolver with a draining tier', () => {
  // 10m retimed to 15m: the 10m tier drains, in the place its delay has among the live tiers.
  const retimed = billingDescriptor({
    tiers: [
      { index: 1, topic: 'orders.confirmed.retry.1m', delayMs: 60_000, label: '1m' },
      { index: 2, topic: 'orders.confirmed.retry.15m', delayMs: 900_000, label: '15m' },
      { index: 3, topic: 'orders.confirmed.retry.1h', delayMs: 3_600_000, label: '1h' },
      { index: 2, topic: 'orders.confirmed.retry.10m', delayMs: 600_000, label: '10m', draining: true },
    ],
  });
  const fromDraining = (recordedAttempt: number | undefined) =>
    resolveDestination(retimed, { topic: 'orders.confirmed.retry.10m', kind: 'transient-long', triesInPlace: 3, now, recordedAttempt });

  it('sends a record on to the live tier its x-attempt reaches, never to a draining tier', () => {
    expect(fromDraining(3)).toMatchObject({ kind: 'tier', tier: { topic: 'orders.confirmed.retry.1h' }, attempt: 4 });
    expect(fromDraining(2)).toMatchObject({ kind: 'tier', tier: { topic: 'orders.confirmed.retry.15m' }, attempt: 3 });
  });

  it('bounds a garbage or missing x-attempt to the tiers the consumer knows, so the record neither loops nor is lost', () => {
    // One past the four tiers, live and draining: the attempt a record can have reached at most.
    expect(fromDraining(999_999)).toEqual({ kind: 'dlq', attempt: 5, reason: 'retries-exhausted' });
    expect(fromDraining(0)).toMatchObject({ kind: 'tier', tier: { topic: 'orders.confirmed.retry.15m' }, attempt: 3 });
    expect(fromDraining(undefined)).toMatchObject({ kind: 'tier', tier: { topic: 'orders.confirmed.retry.1h' }, attempt: 4 });
  });

  it('finding 4 (#28): a record that leaves a draining tier for the DLQ is on the same attempt with or without its x-attempt header', () => {
    // Live 1m and 10m; the 1h tier drains. Its records were written on attempt 4 (main, 1m, 10m failed).
    const shortened = billingDescriptor({
      tiers: [
        { index: 1, topic: 'orders.confirmed.retry.1m', delayMs: 60_000, label: '1m' },
        { index: 2, topic: 'orders.confirmed.retry.10m', delayMs: 600_000, label: '10m' },
        { index: 3, topic: 'orders.confirmed.retry.1h', delayMs: 3_600_000, label: '1h', draining: true },
      ],
    });
    const from1h = (recordedAttempt: number | undefined) =>
      resolveDestination(shortened, { topic: 'orders.confirmed.retry.1h', kind: 'transient-long', triesInPlace: 3, now, recordedAttempt });
    expect(from1h(4)).toEqual({ kind: 'dlq', attempt: 4, reason: 'retries-exhausted' });
    expect(from1h(undefined)).toEqual(from1h(4));
  });

  it('finding 4 (#28): an in-place-only consumer draining its old tier keeps the attempt a record is on', () => {
    const inPlaceOnly = billingDescriptor({ ordering: 'in-place-only', tiers: [{ index: 1, topic: 'orders.confirmed.retry.1m', delayMs: 60_000, label: '1m', draining: true }] });
    const from1m = (recordedAttempt: number | undefined) =>
      resolveDestination(inPlaceOnly, { topic: 'orders.confirmed.retry.1m', kind: 'transient-long', triesInPlace: 3, now, recordedAttempt });
    expect(from1m(2)).toEqual({ kind: 'dlq', attempt: 2, reason: 'retries-exhausted' });
    expect(from1m(undefined)).toEqual(from1m(2));
  });

  it('dead-letters a record that fails on the last live tier, never sending it on to the draining tier listed after it', () => {
    const from1h = resolveDestination(retimed, { topic: 'orders.confirmed.retry.1h', kind: 'transient-long', triesInPlace: 3, now });
    expect(from1h).toEqual({ kind: 'dlq', attempt: 4, reason: 'retries-exhausted' });
    expect(fromDraining(4)).toEqual({ kind: 'dlq', attempt: 4, reason: 'retries-exhausted' });
  });

  it('keeps counting attempts of live tiers by where the record was read', () => {
    expect(attemptOf(retimed, 'orders.confirmed.retry.15m', 99)).toBe(3);
  });
});
