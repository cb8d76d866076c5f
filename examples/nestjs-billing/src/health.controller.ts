import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { KafkaRetryHealthIndicator } from '@kafka-retry-topology/runtime/nestjs';

/** `GET /health`: 503 while a consumer is out of its group or the broker refuses its retry or DLQ publishes. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly kafkaRetry: KafkaRetryHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.kafkaRetry.isHealthy()]);
  }
}
