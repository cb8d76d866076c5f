/**
 * A small billing service on the generated router package of topology `orders`.
 * Run it against a broker with KAFKA_BOOTSTRAP_SERVERS, KAFKA_SASL_USERNAME and
 * KAFKA_SASL_PASSWORD set; metrics are served on :9464/metrics (METRICS_PORT: another port,
 * 0 for any free one).
 */
import http from 'node:http';
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { kafkajsPort } from '@kafka-retry-topology/runtime';
import { billingOrderConfirmed, createRetryingConsumer } from 'orders-retry-router';

const OrderConfirmed = z.object({ orderId: z.string(), amountCents: z.number().int().positive(), currency: z.string().length(3) });

/** Charges an order; a 503 from the payment service is retried through the tiers, a 4xx dead-lettered. */
async function chargeOrder(order: z.infer<typeof OrderConfirmed>): Promise<void> {
  const response = await fetch(`${process.env.PAYMENT_URL ?? 'http://localhost:8080'}/charges/${order.orderId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'idempotency-key': order.orderId },
    body: JSON.stringify(order),
  });
  if (!response.ok) throw Object.assign(new Error(`payment service answered ${response.status}`), { name: 'HTTPError', status: response.status });
}

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};

async function main(): Promise<void> {
  const kafka = new Kafka({
    clientId: 'billing',
    brokers: env('KAFKA_BOOTSTRAP_SERVERS').split(','),
    sasl: { mechanism: 'plain', username: env('KAFKA_SASL_USERNAME'), password: env('KAFKA_SASL_PASSWORD') },
    logLevel: logLevel.WARN,
  });
  const registry = new Registry();
  const consumer = createRetryingConsumer('billing-order-confirmed', {
    kafka: kafkajsPort(kafka),
    registry,
    handler: async ({ message }) => {
      // A ZodError or SyntaxError is permanent: straight to the DLQ, no retries.
      const order = OrderConfirmed.parse(JSON.parse(message.value?.toString('utf8') ?? ''));
      await chargeOrder(order);
    },
    onEvent: (event) => {
      if (event.type === 'routed') console.warn(`${event.record.topic}@${event.record.message.offset} -> ${event.destination.kind === 'tier' ? event.destination.tier.topic : billingOrderConfirmed.dlqTopic}`);
    },
  });

  const server = http.createServer(async (_req, res) => {
    res.setHeader('content-type', registry.contentType);
    res.end(await registry.metrics());
  });
  server.listen(Number(process.env.METRICS_PORT ?? 9464));

  const shutdown = async () => {
    // stop() rejects when a client could not close in time (the broker away): what was not committed runs again.
    await consumer.stop().catch((error: unknown) => console.error(error));
    server.close();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await consumer.start();
  console.log(`billing consumes ${billingOrderConfirmed.mainTopic}, retries through ${billingOrderConfirmed.tiers.map((t) => t.label).join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
