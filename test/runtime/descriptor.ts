import type { ConsumerDescriptor } from '../../src/runtime/descriptor';

/** The billing consumer of the examples, as its generated router package describes it. */
export function billingDescriptor(overrides: Partial<ConsumerDescriptor> = {}): ConsumerDescriptor {
  return {
    name: 'billing-order-confirmed',
    mainTopic: 'orders.confirmed',
    groups: { main: 'billing-order-confirmed', retry: 'billing-order-confirmed.retry', replay: 'billing-order-confirmed.dlq-replay', monitor: 'billing-order-confirmed.dlq-monitor' },
    tiers: [
      { index: 1, topic: 'orders.confirmed.retry.1m', delayMs: 60_000, label: '1m' },
      { index: 2, topic: 'orders.confirmed.retry.10m', delayMs: 600_000, label: '10m' },
      { index: 3, topic: 'orders.confirmed.retry.1h', delayMs: 3_600_000, label: '1h' },
    ],
    dlqTopic: 'orders.confirmed.dlq',
    inPlace: { attempts: 3, backoffMs: 100, maxBackoffMs: 2_000, jitter: 0.5 },
    errorPolicy: { permanent: ['OrderValidationError'], ambiguous: ['OrderNotFoundError'], ambiguousTiers: 2 },
    ordering: 'unordered',
    headerStyle: 'x',
    ...overrides,
  };
}
