import { defineTopology } from 'kafka-retry-topology';

/** Billing confirms payment for every confirmed order: money, so one dead letter pages someone. */
export default defineTopology({
  name: 'orders',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://github.com/acme/kafka-topologies/blob/main/generated/runbooks',
  consumers: [
    {
      name: 'billing-order-confirmed',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:billing',
      ladder: ['1m', '10m', '1h'],
      criticality: 'money',
      errors: {
        permanent: ['OrderValidationError', 'CurrencyMismatchError'],
        ambiguous: ['OrderNotFoundError'],
        ambiguousTiers: 2,
      },
      ordering: 'park-by-key',
    },
  ],
});
