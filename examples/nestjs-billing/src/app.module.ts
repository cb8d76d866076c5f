import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { register } from 'prom-client';
import { KafkaRetryModule } from '@kafka-retry-topology/runtime/nestjs';
import { kafkajsMonitorPort, kafkajsPort } from '@kafka-retry-topology/runtime';
import { BillingConfig } from './billing.config';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { OrderConfirmedHandler } from './order-confirmed.handler';
import { PaymentsService } from './payments.service';

@Module({ providers: [BillingConfig], exports: [BillingConfig] })
class BillingConfigModule {}

/** A client of the cluster as one principal: the consumer's, or the DLQ monitor's. */
const kafkaAs = (config: BillingConfig, credentials: { username: string; password: string }) =>
  new Kafka({ clientId: 'billing', brokers: config.brokers, sasl: { mechanism: 'plain', ...credentials }, logLevel: logLevel.WARN });

@Module({
  imports: [
    BillingConfigModule,
    TerminusModule,
    KafkaRetryModule.forRootAsync({
      imports: [BillingConfigModule],
      inject: [BillingConfig],
      useFactory: (config: BillingConfig) => ({
        kafka: kafkajsPort(kafkaAs(config, config.credentials)),
        registry: register,
        dlqMonitor: config.monitor && {
          port: (consumer) => kafkajsMonitorPort(kafkaAs(config, config.monitor!.credentials), consumer.groups.monitor),
          intervalMs: config.monitor.intervalMs,
        },
      }),
    }),
  ],
  controllers: [HealthController, MetricsController],
  providers: [PaymentsService, OrderConfirmedHandler],
})
export class AppModule {}
