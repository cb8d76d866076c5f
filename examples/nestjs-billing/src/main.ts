/**
 * The billing service as a Nest application: it charges each order of orders.confirmed
 * through the retrying consumer of the generated router package of topology `orders`.
 * Set KAFKA_BOOTSTRAP_SERVERS, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD (and PAYMENT_URL,
 * PORT; KAFKA_MONITOR_USERNAME, KAFKA_MONITOR_PASSWORD and DLQ_MONITOR_INTERVAL_MS to run
 * the DLQ monitor too); it serves /health and /metrics.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { BillingConfig } from './billing.config';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  // On SIGTERM the consumers finish the records in hand, commit them and leave their groups.
  app.enableShutdownHooks();
  await app.listen(app.get(BillingConfig).port);
}

bootstrap().catch((error: unknown) => {
  console.error(`the billing service could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
