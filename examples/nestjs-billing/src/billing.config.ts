import { Injectable } from '@nestjs/common';

/** The service's settings, from the environment; a missing one stops the start with its name. */
@Injectable()
export class BillingConfig {
  readonly brokers = required('KAFKA_BOOTSTRAP_SERVERS').split(',');
  readonly username = required('KAFKA_SASL_USERNAME');
  readonly password = required('KAFKA_SASL_PASSWORD');
  readonly paymentUrl = process.env.PAYMENT_URL ?? 'http://localhost:8080';
  readonly port = Number(process.env.PORT ?? 3000);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}: the billing service needs it to start`);
  return value;
}
