import { Injectable } from '@nestjs/common';

/** The service's settings, from the environment; a missing one stops the start with its name. */
@Injectable()
export class BillingConfig {
  readonly brokers = required('KAFKA_BOOTSTRAP_SERVERS').split(',');
  readonly credentials = { username: required('KAFKA_SASL_USERNAME'), password: required('KAFKA_SASL_PASSWORD') };
  readonly paymentUrl = process.env.PAYMENT_URL ?? 'http://localhost:8080';
  readonly port = Number(process.env.PORT ?? 3000);
  /** The DLQ monitor's principal; without it the service runs no monitor (run one elsewhere, as that principal). */
  readonly monitor = process.env.KAFKA_MONITOR_USERNAME
    ? {
        credentials: { username: process.env.KAFKA_MONITOR_USERNAME, password: required('KAFKA_MONITOR_PASSWORD') },
        intervalMs: Number(process.env.DLQ_MONITOR_INTERVAL_MS ?? 30_000),
      }
    : undefined;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}: the billing service needs it to start`);
  return value;
}
