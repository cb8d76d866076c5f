/**
 * Boots KafkaRetryModule in a real Nest application context, on the in-memory broker, and
 * prints as JSON where each failure went; test/nestjs-module.test.ts runs it as its own
 * process, because jest's module system cannot load Nest 12 (ESM-only) on Node 20.
 */
import 'reflect-metadata';
import { BadRequestException, Catch, ConflictException, HttpException, Module, NotFoundException, RequestTimeoutException, ServiceUnavailableException, UnauthorizedException, UseFilters, UseGuards } from '@nestjs/common';
import type { CanActivate, ExceptionFilter, ExecutionContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RpcException } from '@nestjs/microservices';
import { Registry } from 'prom-client';
import { KafkaRetryConsumer, KafkaRetryModule, nestExceptionClassifier, OnRecord } from '../src/nestjs';
import type { ConsumedRecord, ConsumerDescriptor } from '../src/runtime';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';

const descriptor = (name: string): ConsumerDescriptor => ({
  name,
  mainTopic: `${name}.main`,
  groups: { main: name, retry: `${name}.retry`, replay: `${name}.dlq-replay`, monitor: `${name}.dlq-monitor` },
  // No delay: the module's consumers read the system clock, which broker.run() does not move.
  tiers: [{ index: 1, topic: `${name}.main.retry.0s`, delayMs: 0, label: '0s' }],
  dlqTopic: `${name}.main.dlq`,
  inPlace: { attempts: 1, backoffMs: 1, maxBackoffMs: 1, jitter: 0 },
  errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 1 },
  ordering: 'unordered',
  headerStyle: 'x',
});
const consumers = { payments: descriptor('payments'), lenient: descriptor('lenient') };

/** The exception each record's value names. */
const EXCEPTIONS: Record<string, () => unknown> = {
  'bad-request': () => new BadRequestException(['amountCents must be positive']),
  unauthorized: () => new UnauthorizedException(),
  'not-found': () => new NotFoundException('no such order'),
  'request-timeout': () => new RequestTimeoutException(),
  'too-many-requests': () => new HttpException('slow down', 429),
  'service-unavailable': () => new ServiceUnavailableException(),
  'rpc-status-400': () => new RpcException({ status: 400, message: 'invalid' }),
  'rpc-status-503': () => new RpcException({ statusCode: 503, message: 'down' }),
  'rpc-kind-permanent-code': () => new RpcException({ kind: 'permanent-code' }),
  'rpc-text': () => new RpcException('something went wrong'),
  'type-error': () => new TypeError('cannot read properties of undefined'),
  conflict: () => new ConflictException('already charged'),
  teapot: () => new HttpException('short and stout', 418),
};

/** Handles one exception (the record is done) and turns another into a 503 (the tiers). */
@Catch(ConflictException, HttpException)
class DecidingFilter implements ExceptionFilter {
  catch(exception: HttpException): string {
    if (exception instanceof ConflictException) return 'settled';
    if (exception.getStatus() === 418) throw new ServiceUnavailableException('the teapot is busy');
    throw exception;
  }
}

/** Refuses the record `guarded`, in this module's context type only. */
class RefusingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.getType<string>() !== 'kafka-retry' || context.getArgByIndex<ConsumedRecord>(0).message.value!.toString() !== 'guarded';
  }
}

@KafkaRetryConsumer(consumers, 'payments')
@UseFilters(DecidingFilter)
@UseGuards(RefusingGuard)
class PaymentsHandler {
  @OnRecord()
  async handle(record: ConsumedRecord): Promise<void> {
    throw EXCEPTIONS[record.message.value!.toString()]!();
  }
}

/** Overrides the mapping for its own consumer: a BadRequestException is worth retrying here. */
@KafkaRetryConsumer(consumers, 'lenient', { classify: (e) => (e instanceof BadRequestException ? 'transient-long' : undefined) })
class LenientHandler {
  @OnRecord()
  async handle(record: ConsumedRecord): Promise<void> {
    throw EXCEPTIONS[record.message.value!.toString()]!();
  }
}

async function main(): Promise<void> {
  const broker = new MemoryBroker(new VirtualClock());
  for (const d of Object.values(consumers)) for (const topic of [d.mainTopic, d.tiers[0]!.topic, d.dlqTopic]) broker.createTopic(topic, 1);

  @Module({ imports: [KafkaRetryModule.forRoot({ kafka: broker.port(), registry: new Registry() })], providers: [PaymentsHandler, LenientHandler] })
  class ProbeModule {}

  const app = await NestFactory.createApplicationContext(ProbeModule, { logger: false });
  await app.init();
  const send = (d: ConsumerDescriptor, values: string[]) => values.forEach((v) => broker.append(d.mainTopic, { key: Buffer.from(v), value: Buffer.from(v), partition: 0 }));
  send(consumers.payments, [...Object.keys(EXCEPTIONS), 'guarded']);
  send(consumers.lenient, ['bad-request', 'type-error']);
  // Tier records run at once: their tier has no delay.
  await broker.run();

  /** Where each record went: `dlq@<x-attempt>` (2: through the tier first), `tier` (waiting there), or `done` (in neither). */
  const destinations = (d: ConsumerDescriptor) => {
    const inTier = new Set(broker.records(d.tiers[0]!.topic).map((r) => r.key!.toString()));
    const dlq = new Map(broker.records(d.dlqTopic).map((r) => [r.key!.toString(), String(r.headers['x-attempt'])]));
    return Object.fromEntries(broker.records(d.mainTopic).map((r) => r.key!.toString()).map((k) => [k, dlq.has(k) ? `dlq@${dlq.get(k)}` : inTier.has(k) ? 'tier' : 'done']));
  };
  const kinds = Object.fromEntries(Object.entries(EXCEPTIONS).map(([name, make]) => [name, nestExceptionClassifier(make()) ?? null]));
  await app.close();
  const committed = Object.fromEntries(Object.values(consumers).map((d) => [d.name, broker.committedOffset(d.groups.main, d.mainTopic, 0) ?? null]));
  process.stdout.write(JSON.stringify({ kinds, payments: destinations(consumers.payments), lenient: destinations(consumers.lenient), committed }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
