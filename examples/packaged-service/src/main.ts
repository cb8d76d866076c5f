/**
 * Analytics on confirmed orders, as a service in a repository of its own: it installs the
 * generated router package of topology `analytics` and the runtime package as packages
 * (see docs/router-package.md). Set KAFKA_BOOTSTRAP_SERVERS, KAFKA_SASL_USERNAME,
 * KAFKA_SASL_PASSWORD, and KAFKA_SSL=false for a plaintext listener.
 */
import { Kafka, logLevel } from 'kafkajs';
import { kafkajsPort } from '@kafka-retry-topology/runtime';
import { analyticsOrders, createRetryingConsumer } from 'analytics-retry-router';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

async function main(): Promise<void> {
  const kafka = new Kafka({
    clientId: 'packaged-service',
    brokers: env('KAFKA_BOOTSTRAP_SERVERS').split(','),
    ssl: process.env.KAFKA_SSL !== 'false',
    sasl: { mechanism: 'plain', username: env('KAFKA_SASL_USERNAME'), password: env('KAFKA_SASL_PASSWORD') },
    logLevel: logLevel.WARN,
  });
  const consumer = createRetryingConsumer('analytics-orders', {
    kafka: kafkajsPort(kafka),
    handler: async ({ message }) => {
      // A record that is not JSON throws a SyntaxError: permanent, so straight to the DLQ.
      const order = JSON.parse(message.value?.toString('utf8') ?? '') as { orderId: string };
      console.log(`handled ${order.orderId}`);
    },
    onEvent: (event) => {
      if (event.type === 'routed') {
        const to = event.destination.kind === 'tier' ? event.destination.tier.topic : analyticsOrders.dlqTopic;
        console.log(`routed ${event.record.topic}@${event.record.message.offset} to ${to}`);
      }
    },
  });
  // stop() rejects when a client could not close in time (the broker away): what was not committed runs again.
  const stop = () =>
    void consumer.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await consumer.start();
  console.log(`consuming ${analyticsOrders.mainTopic}, retrying through ${analyticsOrders.tiers.map((t) => t.label).join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
