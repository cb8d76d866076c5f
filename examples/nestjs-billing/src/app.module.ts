import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { register } from 'prom-client';
import { KafkaRetryModule } from 'kafka-retry-topology/nestjs';
import { kafkajsPort } from 'kafka-retry-topology/runtime';
import { BillingConfig } from './billing.config';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { OrderConfirmedHandler } from './order-confirmed.handler';
import { PaymentsService } from './payments.service';

@Module({ providers: [BillingConfig], exports: [BillingConfig] })
class BillingConfigModule {}

@Module({
  imports: [
    BillingConfigModule,
    TerminusModule,
    KafkaRetryModule.forRootAsync({
      imports: [BillingConfigModule],
      inject: [BillingConfig],
      useFactory: (config: BillingConfig) => ({
        kafka: kafkajsPort(
          new Kafka({
            clientId: 'billing',
            brokers: config.brokers,
            sasl: { mechanism: 'plain', username: config.username, password: config.password },
            logLevel: logLevel.WARN,
          }),
        ),
        registry: register,
      }),
    }),
  ],
  controllers: [HealthController, MetricsController],
  providers: [PaymentsService, OrderConfirmedHandler],
})
export class AppModule {}
