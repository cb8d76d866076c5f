import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { KafkaRetryExplorer } from './kafka-retry.explorer';
import { KafkaRetryHealthIndicator } from './kafka-retry.health';
import { ConfigurableModuleClass } from './kafka-retry.module-definition';
import { KafkaRetryOrchestrator } from './kafka-retry.orchestrator';

/**
 * Runs the retrying consumer of every `@KafkaRetryConsumer()` provider of the
 * application: `KafkaRetryModule.forRoot({ kafka, registry })`, or `forRootAsync({
 * useFactory, inject })` to build the client from configuration.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [KafkaRetryExplorer, KafkaRetryOrchestrator, KafkaRetryHealthIndicator],
  exports: [KafkaRetryHealthIndicator],
})
export class KafkaRetryModule extends ConfigurableModuleClass {}
