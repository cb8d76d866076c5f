/**
 * Shuts KafkaRetryModule's orchestrator down while it still bootstraps (app.close(), or a
 * SIGTERM with enableShutdownHooks, as the application starts), on the in-memory broker, and
 * prints as JSON what ran on afterwards; test/nestjs-status.test.ts runs it as its own process,
 * because jest's module system cannot load Nest 12 (ESM-only) on Node 20. Nest calls the hooks
 * in this order; the orchestrator is driven directly so the shutdown can come mid-bootstrap.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { KafkaRetryOrchestrator } from '../src/nestjs/kafka-retry.orchestrator';
import type { KafkaRetryExplorer } from '../src/nestjs/kafka-retry.explorer';
import type { KafkaPort, MonitorPort } from '../src/runtime';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { probeDescriptor } from './nestjs-probe-descriptor';

const descriptor = probeDescriptor;

/**
 * The broker's port, the first connect held until released, the others taking a while; each
 * client's last connect or disconnect to end is kept: a client whose connect ended after its
 * disconnect is connected, as a real client is.
 */
function heldPort(inner: KafkaPort) {
  const last = new Map<string, 'connected' | 'disconnected'>();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  let first = true;
  const connect = async (client: string, call: () => Promise<void>) => {
    if (first) {
      first = false;
      reached();
      await gate;
    } else {
      // As long as a connect to a real broker takes.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await call();
    last.set(client, 'connected');
  };
  let producers = 0;
  const port: KafkaPort = {
    consumer(groupId, options) {
      const c = inner.consumer(groupId, options);
      return Object.assign(Object.create(c) as typeof c, {
        connect: () => connect(`consumer ${groupId}`, () => c.connect()),
        disconnect: async () => {
          await c.disconnect();
          last.set(`consumer ${groupId}`, 'disconnected');
        },
      });
    },
    producer() {
      const p = inner.producer();
      const name = `producer ${producers++}`;
      return Object.assign(Object.create(p) as typeof p, {
        connect: () => connect(name, () => p.connect()),
        disconnect: async () => {
          await p.disconnect();
          last.set(name, 'disconnected');
        },
      });
    },
  };
  const stillConnected = () => [...last].filter(([, state]) => state === 'connected').map(([client]) => client);
  return { port, release, atGate, stillConnected };
}

async function main(): Promise<void> {
  Logger.overrideLogger(false);
  const consumers = [descriptor('payments'), descriptor('refunds')];
  const broker = new MemoryBroker(new VirtualClock());
  for (const d of consumers) for (const topic of [d.mainTopic, d.tiers[0]!.topic, d.dlqTopic]) broker.createTopic(topic, 1);
  const held = heldPort(broker.port());
  let polls = 0;
  const monitorPort = (): MonitorPort => ({
    endOffsets: async () => {
      polls++;
      return [{ partition: 0, low: '0', high: '0' }];
    },
    committedOffsets: async () => [],
    timestampsAt: async () => new Map(),
  });
  const explorer = { explore: () => consumers.map((d) => ({ provider: d.name, descriptor: d, options: {}, handler: async () => undefined })) } as unknown as KafkaRetryExplorer;
  const orchestrator = new KafkaRetryOrchestrator({ kafka: held.port, registry: new Registry(), dlqMonitor: { port: monitorPort, intervalMs: 5 } }, explorer);

  const booted = orchestrator.onApplicationBootstrap().then(
    () => 'fulfilled',
    (error: unknown) => `rejected: ${error instanceof Error ? error.message : String(error)}`,
  );
  await held.atGate;
  const shutDown = orchestrator.beforeApplicationShutdown();
  held.release();
  const [bootstrap] = await Promise.all([booted, shutDown]);
  const pollsAtShutdown = polls;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const connectedByHealth = Object.entries(orchestrator.health()).filter(([, h]) => h.connected).map(([name]) => name);
  process.stdout.write(JSON.stringify({ bootstrap, stillConnected: held.stillConnected(), connectedByHealth, pollsAfterShutdown: polls - pollsAtShutdown }));
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
