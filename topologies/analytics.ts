import { defineTopology } from 'kafka-retry-topology';

/**
 * Analytics reads the same orders.confirmed as billing. Retry topics are per consumer
 * (R2), so it gets its own stem: without retryTopicBase its 1m tier and DLQ would be
 * billing's orders.confirmed.retry.1m and orders.confirmed.dlq, and validation says so.
 */
export default defineTopology({
  name: 'analytics',
  owner: { team: 'analytics', onCall: '#analytics-oncall' },
  runbookBaseUrl: 'https://github.com/acme/kafka-topologies/blob/main/generated/runbooks',
  consumers: [
    {
      name: 'analytics-orders',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:analytics',
      retryTopicBase: 'orders.confirmed.analytics-orders',
      ladder: ['5s', '1m'],
      criticality: 'analytics',
    },
  ],
});
