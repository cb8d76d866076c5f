import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { KafkaPort, RunOptions } from '../../src/runtime/port';
import { createRetryingConsumer, DEFAULT_DRAIN_TIMEOUT_MS } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumerOptions } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import type { ValueDecoder } from '../../src/runtime/value-codec';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { consumer as parkByKey } from './park-by-key-world';

/**
 * #26/#28 leftover: stop() waited for the records in hand with no limit, so user code that
 * never settles (a handler, a value decoder or schema check awaiting a dead dependency)
 * kept stop() waiting forever: the process never left its group, and an orchestrator
 * killed it. stop() must end within its drain deadline whatever user code does; the record
 * in hand is then not committed, so it is read again.
 */
const never = () => new Promise<never>(() => {});

/**
 * The in-memory broker's port, whose consumers' disconnect() waits for the eachMessage or
 * eachBatch call in progress, as kafkajs's does: a callback that never settles keeps it waiting.
 */
function disconnectWaitsForCallbacks(broker: MemoryBroker): KafkaPort {
  const port = broker.port();
  return {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      const running = new Set<Promise<void>>();
      const track = <P>(call: (p: P) => Promise<void>) => (p: P) => {
        const done = call(p).finally(() => running.delete(done));
        running.add(done);
        return done;
      };
      const run = c.run.bind(c);
      const disconnect = c.disconnect.bind(c);
      c.run = (r: RunOptions) => run('eachMessage' in r ? { ...r, eachMessage: track(r.eachMessage) } : { ...r, eachBatch: track(r.eachBatch) });
      c.disconnect = async () => {
        await Promise.allSettled(running);
        await disconnect();
      };
      return c;
    },
  };
}

function world(descriptor: ConsumerDescriptor) {
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [descriptor.mainTopic, ...descriptor.tiers.map((t) => t.topic), descriptor.dlqTopic]) broker.createTopic(topic, 1);
  const kafka = disconnectWaitsForCallbacks(broker);
  const start = async (options: Partial<RetryingConsumerOptions>) => {
    const retrying = createRetryingConsumer(descriptor, { kafka, clock, random: () => 0.5, handler: async () => {}, ...options });
    await retrying.start();
    return retrying;
  };
  /** Calls stop() and moves the virtual clock on until it ends (or gives up): the time it took. */
  const stopTimed = async (retrying: { stop(): Promise<void> }) => {
    const from = clock.now();
    let stopped = false;
    const stopping = retrying.stop().finally(() => (stopped = true));
    for (let i = 0; i < 1_000 && !stopped; i++) {
      await new Promise((r) => setImmediate(r));
      if (!stopped && clock.hasTimers()) clock.advanceToNextTimer();
    }
    if (!stopped) return 'still waiting';
    await stopping;
    return clock.now() - from;
  };
  return { clock, broker, start, stopTimed };
}

type Hang = { readonly what: string; readonly descriptor: ConsumerDescriptor; readonly options: (entered: () => void) => Partial<RetryingConsumerOptions>; readonly onTier?: boolean };

const unordered = billingDescriptor();
const hangs: Hang[] = [
  { what: 'a handler on the main topic', descriptor: unordered, options: (entered) => ({ handler: async () => (entered(), never()) }) },
  { what: 'a value decoder', descriptor: unordered, options: (entered) => ({ decodeValue: (() => (entered(), never())) as ValueDecoder }) },
  {
    what: 'a handler on a tier record',
    descriptor: unordered,
    onTier: true,
    options: (entered) => ({ handler: async (r: ConsumedRecord) => (r.topic === unordered.mainTopic ? Promise.reject(httpError(503)) : (entered(), never())) }),
  },
  { what: 'a park-by-key handler', descriptor: parkByKey, options: (entered) => ({ handler: async () => (entered(), never()) }) },
  {
    what: 'a park-by-key handler on a tier record',
    descriptor: parkByKey,
    onTier: true,
    options: (entered) => ({ handler: async (r: ConsumedRecord) => (r.topic === parkByKey.mainTopic ? Promise.reject(httpError(503)) : (entered(), never())) }),
  },
];

describe('stop() while user code never settles', () => {
  for (const hang of hangs) {
    it(`ends within its drain deadline when ${hang.what} hangs, and the record is read again by the next run`, async () => {
      const w = world(hang.descriptor);
      w.broker.append(hang.descriptor.mainTopic, { key: Buffer.from('k'), value: Buffer.from('"v"'), partition: 0 });
      let entered = false;
      const first = await w.start(hang.options(() => (entered = true)));
      await w.broker.run({ stopWhen: () => entered, maxSteps: 10_000 });
      expect(entered).toBe(true);

      const took = await w.stopTimed(first);
      expect(typeof took === 'number' && took <= DEFAULT_DRAIN_TIMEOUT_MS).toBe(true);

      const seen: string[] = [];
      const topic = hang.onTier ? hang.descriptor.tiers[0]!.topic : hang.descriptor.mainTopic;
      const next = await w.start({ handler: async (r: ConsumedRecord) => void (r.topic === topic && seen.push(valueOf(r))) });
      await w.broker.run({ stopWhen: () => seen.length > 0, maxSteps: 20_000 });
      await w.stopTimed(next);
      expect(seen).toEqual(['"v"']);
    });
  }
});
