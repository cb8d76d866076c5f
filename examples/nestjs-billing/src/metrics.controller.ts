import { Controller, Get, Header } from '@nestjs/common';
import { register } from 'prom-client';

/** `GET /metrics`: the registry the module writes to, for Prometheus and the generated alerts. */
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('content-type', register.contentType)
  metrics(): Promise<string> {
    return register.metrics();
  }
}
