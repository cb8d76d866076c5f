import { Injectable } from '@nestjs/common';
import { isHealthy } from './consumer-status';
import type { ConsumerHealth } from './consumer-status';
import { KafkaRetryOrchestrator } from './kafka-retry.orchestrator';

/** The shape `@nestjs/terminus` reads from a health indicator, without importing it (an optional peer). */
export type KafkaRetryHealthResult = Record<string, { status: 'up' | 'down'; consumers: Record<string, ConsumerHealth> }>;

/**
 * A health indicator for `@nestjs/terminus`: down when a consumer is not in its groups
 * or the broker refuses a publish to a tier or the DLQ (the record waits, uncommitted);
 * the details add the partitions waiting for a due time or paused by full parking, and
 * the DLQ monitor's last reading.
 *
 * ```ts
 * @Get('health') @HealthCheck()
 * check() { return this.health.check([() => this.kafkaRetry.isHealthy()]); }
 * ```
 */
@Injectable()
export class KafkaRetryHealthIndicator {
  constructor(private readonly orchestrator: KafkaRetryOrchestrator) {}

  isHealthy(key = 'kafka-retry'): KafkaRetryHealthResult {
    const consumers = this.orchestrator.health();
    const up = Object.values(consumers).every(isHealthy);
    return { [key]: { status: up ? 'up' : 'down', consumers } };
  }
}
