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
import { KafkaRetryConsumer, KafkaRetryHealthIndicator, KafkaRetryModule, nestExceptionClassifier, OnRecord } from '../src/nestjs';
import type { ConsumedRecord, ConsumerDescriptor, MonitorPort } from '../src/runtime';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { probeDescriptor } from './nestjs-probe-descriptor';

const descriptor = probeDescriptor;
const consumers = { payments: descriptor('payments'), lenient: descriptor('lenient'), fragile: descriptor('fragile') };

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
  // What Node's fetch throws when the connection fails: a network error the runtime's table reads as a code error.
  'fetch-failed': () => new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
};

/** The module's classifier: knows that `TypeError: fetch failed` is the network, worth the tiers. */
const moduleClassify = (e: unknown) => (e instanceof TypeError && e.message === 'fetch failed' ? 'transient-long' : undefined);

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

/** Its own classifier has a bug (it reads a field errors without a response lack): every link after it must still be asked. */
@KafkaRetryConsumer(consumers, 'fragile', { classify: (e) => ((e as { response: { data: { retry: boolean } } }).response.data.retry ? 'transient-long' : undefined) })
class FragileHandler {
  @OnRecord()
  async handle(record: ConsumedRecord): Promise<void> {
    throw EXCEPTIONS[record.message.value!.toString()]!();
  }
}

/** How the DLQ monitor finds Kafka: readable; readable but for the DLQ's head record; down. */
type MonitorPhase = 'ok' | 'head-unreadable' | 'down';
const DLQ_WRITTEN = 1_700_000_000_000;

/** Every consumer's DLQ holds 2 unhandled records written at DLQ_WRITTEN, its other topics none; counts each consumer's polls. */
function scriptedMonitorPort(consumer: ConsumerDescriptor, phase: () => MonitorPhase, polls: Map<string, number>): MonitorPort {
  return {
    async endOffsets(topic) {
      if (topic === consumer.dlqTopic) polls.set(consumer.name, (polls.get(consumer.name) ?? 0) + 1);
      if (phase() === 'down') throw new Error('Connection error: connect ECONNREFUSED');
      return [{ partition: 0, low: '0', high: topic === consumer.dlqTopic ? '2' : '0' }];
    },
    committedOffsets: async () => [],
    timestampsAt: async (_topic, offsets) => (phase() === 'head-unreadable' ? new Map() : new Map(offsets.map((o) => [o.partition, DLQ_WRITTEN]))),
  };
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !done(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

async function main(): Promise<void> {
  const broker = new MemoryBroker(new VirtualClock());
  for (const d of Object.values(consumers)) for (const topic of [d.mainTopic, d.tiers[0]!.topic, d.dlqTopic]) broker.createTopic(topic, 1);

  const registry = new Registry();
  let monitorPhase: MonitorPhase = 'ok';
  const polls = new Map<string, number>();
  const dlqMonitor = { port: (d: ConsumerDescriptor) => scriptedMonitorPort(d, () => monitorPhase, polls), intervalMs: 10 };
  @Module({ imports: [KafkaRetryModule.forRoot({ kafka: broker.port(), registry, classify: moduleClassify, dlqMonitor })], providers: [PaymentsHandler, LenientHandler, FragileHandler] })
  class ProbeModule {}

  const app = await NestFactory.createApplicationContext(ProbeModule, { logger: false });
  await app.init();
  const send = (d: ConsumerDescriptor, values: string[]) => values.forEach((v) => broker.append(d.mainTopic, { key: Buffer.from(v), value: Buffer.from(v), partition: 0 }));
  send(consumers.payments, [...Object.keys(EXCEPTIONS), 'guarded']);
  send(consumers.lenient, ['bad-request', 'type-error']);
  send(consumers.fragile, ['fetch-failed', 'rpc-status-400', 'service-unavailable']);
  // Tier records run at once: their tier has no delay.
  await broker.run();

  /** Where each record went: `dlq@<x-attempt>` (2: through the tier first), `tier` (waiting there), or `done` (in neither). */
  const destinations = (d: ConsumerDescriptor) => {
    const inTier = new Set(broker.records(d.tiers[0]!.topic).map((r) => r.key!.toString()));
    const dlq = new Map(broker.records(d.dlqTopic).map((r) => [r.key!.toString(), String(r.headers['x-attempt'])]));
    return Object.fromEntries(broker.records(d.mainTopic).map((r) => r.key!.toString()).map((k) => [k, dlq.has(k) ? `dlq@${dlq.get(k)}` : inTier.has(k) ? 'tier' : 'done']));
  };
  const kinds = Object.fromEntries(Object.entries(EXCEPTIONS).map(([name, make]) => [name, nestExceptionClassifier(make()) ?? null]));

  /** What the health indicator and the gauges say of payments' DLQ after a poll made wholly in `phase`. */
  const gauge = async (name: string) => (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.consumer === 'payments')?.value ?? null;
  const monitorIn = async (phase: MonitorPhase) => {
    monitorPhase = phase;
    const before = polls.get('payments') ?? 0;
    // The loop polls one consumer at a time: once poll before + 2 starts, poll before + 1 has been reported.
    await until(`a poll in phase ${phase}`, () => (polls.get('payments') ?? 0) >= before + 2);
    const { polledAt, ...status } = app.get(KafkaRetryHealthIndicator).isHealthy()['kafka-retry']!.consumers['payments']!.dlq ?? {};
    return { status, gauges: { size: await gauge('kafka_dlq_size'), oldest: await gauge('kafka_dlq_oldest_unhandled_timestamp_seconds') } };
  };
  const monitor = { ok: await monitorIn('ok'), headUnreadable: await monitorIn('head-unreadable'), down: await monitorIn('down') };
  await app.close();
  const committed = Object.fromEntries(Object.values(consumers).map((d) => [d.name, broker.committedOffset(d.groups.main, d.mainTopic, 0) ?? null]));
  process.stdout.write(JSON.stringify({ kinds, payments: destinations(consumers.payments), lenient: destinations(consumers.lenient), fragile: destinations(consumers.fragile), committed, monitor }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
