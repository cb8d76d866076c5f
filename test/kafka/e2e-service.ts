/**
 * A service for the real-Prometheus test, built the way a team builds one: on the
 * generated router package (E2E_ROUTER), serving its registry on /metrics. Records
 * whose value is `bad` fail with a permanent error; the rest succeed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { kafkajsPort } from '../../src/runtime';

interface RouterPackage {
  createRetryingConsumer(name: string, options: Record<string, unknown>): { start(): Promise<void>; stop(): Promise<void> };
}

class OrderValidationError extends Error {
  override name = 'OrderValidationError';
}

async function main(): Promise<void> {
  const router = require(process.env.E2E_ROUTER!) as RouterPackage;
  const kafka = new Kafka({
    clientId: 'e2e-service',
    brokers: process.env.KAFKA_BOOTSTRAP_SERVERS!.split(','),
    sasl: { mechanism: 'plain', username: process.env.KAFKA_SASL_USERNAME!, password: process.env.KAFKA_SASL_PASSWORD! },
    logLevel: logLevel.NOTHING,
  });
  const registry = new Registry();
  const consumer = router.createRetryingConsumer(process.env.E2E_CONSUMER!, {
    kafka: kafkajsPort(kafka),
    registry,
    handler: async ({ message }: { message: { value: Buffer | null } }) => {
      if (message.value?.toString() === 'bad') throw new OrderValidationError('amount must be positive');
    },
  });
  const server = http.createServer((_request, response) => {
    void registry.metrics().then((text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await consumer.start();
  process.stdout.write(`metrics on ${(server.address() as AddressInfo).port}\n`);
  process.once('SIGTERM', () => {
    server.close();
    void consumer.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
