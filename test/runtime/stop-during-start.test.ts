import { Registry } from 'prom-client';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer, STOPPED_BEFORE_START } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { lifecyclePort } from '../helpers/lifecycle-port';
import type { LifecycleStep } from '../helpers/lifecycle-port';
import { billingDescriptor } from './descriptor';

type Step = LifecycleStep;

/**
 * A port that records each client's calls and holds the `gated`-th call of start() (counted
 * over every client) until released: stop() comes while start() waits there, as a SIGTERM
 * while a real client waits for the broker. What a client does after its last disconnect
 * runs on: a kafkajs consumer run() after disconnect() connects again and joins the group.
 */
function gatedPort(inner: KafkaPort, gated: number) {
  const calls: { client: string; step: Step }[] = [];
  let counted = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const through = async <T>(client: string, step: Step, call: () => Promise<T>): Promise<T> => {
    calls.push({ client, step });
    if (step !== 'disconnect' && counted++ === gated) {
      reached();
      await gate;
    }
    return call();
  };
  const port = lifecyclePort(inner, through);
  /** The clients whose last call was not a disconnect: they still run. */
  const stillRunning = () => {
    const last = new Map<string, Step>();
    for (const { client, step } of calls) last.set(client, step);
    return [...last].filter(([, step]) => step !== 'disconnect').map(([client, step]) => `${client} (last: ${step})`);
  };
  return { port, release, atGate, stillRunning, calls };
}

/** How many connect, subscribe and run calls start() makes with this ordering. */
async function stepsOfStart(ordering: 'unordered' | 'park-by-key'): Promise<number> {
  const { port, calls } = gatedPort(worldPort(ordering), Number.POSITIVE_INFINITY);
  const consumer = createRetryingConsumer(billingDescriptor({ ordering }), { kafka: port, clock: new VirtualClock(0), registry: new Registry(), handler: async () => undefined });
  await consumer.start();
  await consumer.stop();
  return calls.filter((c) => c.step !== 'disconnect').length;
}

function worldPort(ordering: 'unordered' | 'park-by-key'): KafkaPort {
  const consumer = billingDescriptor({ ordering });
  const broker = new MemoryBroker(new VirtualClock(0));
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  return broker.port();
}

describe.each(['unordered', 'park-by-key'] as const)('%s: stop() called while start() waits on the broker', (ordering) => {
  it('at whichever step start() waits, once both settled no client runs: each one connected has left', async () => {
    const steps = await stepsOfStart(ordering);
    expect(steps).toBeGreaterThanOrEqual(ordering === 'unordered' ? 7 : 4);
    for (let gated = 0; gated < steps; gated++) {
      const { port, release, atGate, stillRunning } = gatedPort(worldPort(ordering), gated);
      const consumer = createRetryingConsumer(billingDescriptor({ ordering }), { kafka: port, clock: new VirtualClock(0), registry: new Registry(), handler: async () => undefined });
      const started = consumer.start();
      await atGate;
      const stopped = consumer.stop();
      release();
      const outcomes = await Promise.allSettled([started, stopped]);
      expect({ gated, outcomes: outcomes.map((o) => o.status), stillRunning: stillRunning() }).toEqual({ gated, outcomes: ['fulfilled', 'fulfilled'], stillRunning: [] });
    }
  });
});

describe.each(['unordered', 'park-by-key'] as const)('%s: start() called after stop()', (ordering) => {
  it('refuses, and no client connects: nothing would leave it again', async () => {
    const { port, stillRunning } = gatedPort(worldPort(ordering), Number.POSITIVE_INFINITY);
    const consumer = createRetryingConsumer(billingDescriptor({ ordering }), { kafka: port, clock: new VirtualClock(0), registry: new Registry(), handler: async () => undefined });
    await consumer.stop();
    await expect(consumer.start()).rejects.toThrow(STOPPED_BEFORE_START);
    expect(stillRunning()).toEqual([]);
  });
});
