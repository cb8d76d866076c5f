import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { billingDescriptor } from './descriptor';

/** A consumer named as Spring names its topics, so it shares them with a Spring service. */
export function springNamed(headerStyle: ConsumerDescriptor['headerStyle']): ConsumerDescriptor {
  return billingDescriptor({
    headerStyle,
    tiers: [
      { index: 1, topic: 'orders.confirmed-retry-1000', delayMs: 1_000, label: '1s' },
      { index: 2, topic: 'orders.confirmed-retry-2000', delayMs: 2_000, label: '2s' },
    ],
    dlqTopic: 'orders.confirmed-dlt',
  });
}

/** The main record Spring failed: offset 2 of partition 1, by Spring's own group; its tier record is offset 0 of the first retry topic. */
export const SPRING_MAIN = { topic: 'orders.confirmed', partition: 1, offset: 2, timestamp: 1_600_000_000_123, group: 'billing-spring' };
