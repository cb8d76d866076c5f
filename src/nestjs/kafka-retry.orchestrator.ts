import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { register } from 'prom-client';
import { createDlqMonitor, createRetryingConsumer } from '../runtime';
import type { DlqMonitor, RetryEvent, RetryingConsumer } from '../runtime';
import { chainClassifiers } from '../runtime/classify';
import { startPollLoop } from '../runtime/monitor-loop';
import type { PollLoop } from '../runtime/monitor-loop';
import { ConsumerStatus } from './consumer-status';
import type { ConsumerHealth } from './consumer-status';
import { KafkaRetryExplorer } from './kafka-retry.explorer';
import type { ConsumerBinding } from './kafka-retry.explorer';
import { KAFKA_RETRY_MODULE_OPTIONS } from './kafka-retry.module-definition';
import type { KafkaRetryModuleOptions } from './kafka-retry-options.interface';
import { nestExceptionClassifier } from './nest-exception-classifier';
import { ConsumerWiringError } from './consumer-wiring-error';

interface Running {
  readonly name: string;
  readonly consumer: RetryingConsumer;
  readonly status: ConsumerStatus;
  readonly dlq?: DlqMonitor;
}

/**
 * Owns the consumers' lifecycle: they start when the application has bootstrapped and,
 * on shutdown (`app.enableShutdownHooks()`), finish the records in hand, commit them and
 * leave their groups before the HTTP server and `onApplicationShutdown` hooks close.
 */
@Injectable()
export class KafkaRetryOrchestrator implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('KafkaRetry');
  private running: Running[] = [];
  private monitoring?: PollLoop;
  /** Set as the shutdown begins: a bootstrap still under way (app.close() as the app starts) starts nothing more. */
  private shuttingDown = false;

  constructor(
    @Inject(KAFKA_RETRY_MODULE_OPTIONS) private readonly options: KafkaRetryModuleOptions,
    private readonly explorer: KafkaRetryExplorer,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.running = this.explorer.explore().map((binding) => this.create(binding));
    if (this.running.length === 0) this.logger.warn('no @KafkaRetryConsumer() provider found: list your handler classes in a module\'s providers');
    for (const r of this.running) {
      // A consumer stopped before it started refuses start(): its clients would connect after its stop.
      if (this.shuttingDown) return;
      await r.consumer.start().catch((error: unknown) => {
        throw new ConsumerWiringError(`consumer ${r.name} could not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      // Its start() ended because the shutdown stopped it: it is not connected.
      if (this.shuttingDown) return;
      r.status.setConnected(true);
      this.logger.log(`consumer ${r.name} started`);
    }
    // Started after the shutdown stopped monitoring, its loop would poll for good and keep the process alive.
    this.monitoring = this.startMonitoring();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const r of this.running) {
      this.logger.log(`consumer ${r.name} stopping: finishing the records in hand`);
      r.status.setConnected(false);
    }
    await this.monitoring?.stop();
    const stopped = await Promise.allSettled(this.running.map((r) => r.consumer.stop()));
    stopped.forEach((s, i) => (s.status === 'rejected' ? this.logger.error(`consumer ${this.running[i]!.name} did not stop cleanly: ${String(s.reason)}`) : this.logger.log(`consumer ${this.running[i]!.name} stopped`)));
  }

  /** Each consumer's state, by consumer name, for the health indicator. */
  health(): Record<string, ConsumerHealth> {
    return Object.fromEntries(this.running.map((r) => [r.name, r.status.health()]));
  }

  private create(binding: ConsumerBinding): Running {
    const { descriptor } = binding;
    const registry = this.options.registry ?? register;
    const status = new ConsumerStatus();
    const consumer = createRetryingConsumer(descriptor, {
      ...this.options.defaults,
      kafka: this.options.kafka,
      registry,
      handler: binding.handler,
      // The consumer's own classifier, the module's, then Nest's exceptions, each asked even when one before it throws;
      // the runtime asks its declared errors before and its table after.
      classify: chainClassifiers(binding.options.classify, this.options.classify, nestExceptionClassifier),
      onEvent: (event) => {
        status.observe(event);
        this.log(descriptor.name, event);
        this.options.onEvent?.(event);
      },
    });
    const settings = this.options.dlqMonitor;
    const dlq = settings && createDlqMonitor(descriptor, { port: settings.port(descriptor), registry });
    return { name: descriptor.name, consumer, status, dlq };
  }

  /**
   * The consumers' DLQ monitors in the poll loop `krt monitor` runs: one poll at a time (a
   * poll joins the monitor's group), and a failed one drops that consumer's gauges.
   */
  private startMonitoring(): PollLoop | undefined {
    const monitored = this.running.filter((r) => r.dlq !== undefined);
    if (monitored.length === 0) return undefined;
    return startPollLoop(
      monitored.map((r) => ({ status: r.status, poll: (signal?: AbortSignal) => r.dlq!.poll(signal) })),
      {
        intervalMs: this.options.dlqMonitor?.intervalMs ?? 30_000,
        onPoll: ({ status }, outcome) => (outcome.ok ? status.observeDlq(outcome.snapshot) : status.observeDlqError(outcome.error)),
      },
    );
  }

  private log(name: string, event: RetryEvent): void {
    if (event.type === 'routed') {
      const to = event.destination.kind === 'tier' ? `tier ${event.destination.tier.label}` : 'the DLQ';
      this.logger.warn(`${name}: ${event.record.topic}/${event.record.partition}@${event.record.message.offset} failed (${String(event.error)}) -> ${to}`);
    } else if (event.type === 'publish-failed') {
      this.logger.error(`${name}: publishing ${event.record.topic}/${event.record.partition}@${event.record.message.offset} failed (${String(event.error)}); retrying in ${event.retryInMs} ms, the record stays uncommitted`);
    }
  }
}
