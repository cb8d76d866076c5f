import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { KafkaRetryModuleOptions } from './kafka-retry-options.interface';

/** `forRoot(options)` and `forRootAsync({ useFactory, inject, imports })`, the way Nest's own modules take options. */
export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: KAFKA_RETRY_MODULE_OPTIONS } = new ConfigurableModuleBuilder<KafkaRetryModuleOptions>()
  .setClassMethodName('forRoot')
  .build();
