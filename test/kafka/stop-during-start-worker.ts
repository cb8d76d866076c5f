/**
 * A worker for stop-during-start.test.ts: starts a retrying consumer on a real broker and
 * calls stop() while the `STOP_AT`-th call of start() (connect, subscribe or run, counted
 * over every client) is under way, `STOP_DELAY_MS` after it was made. Once both settled it
 * prints one JSON line and returns: the process must then exit on its own, with no client
 * of its left in a group.
 */
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { ConsumerPort, KafkaPort, ProducerPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { clientNamed } from './clients';

type Step = 'connect' | 'subscribe' | 'run';

/** The port, with a hook called as each connect, subscribe and run of start() is made. */
function watchedPort(inner: KafkaPort, made: (client: string, step: Step) => void): KafkaPort {
  return {
    consumer(groupId, options) {
      const c = inner.consumer(groupId, options);
      const name = `consumer ${groupId}`;
      const wrapped: ConsumerPort = {
        ...c,
        pause: (p) => c.pause(p),
        resume: (p) => c.resume(p),
        seek: (p) => c.seek(p),
        commitOffsets: (o) => c.commitOffsets(o),
        committed: (t, p) => c.committed(t, p),
        onRebalance: (l) => c.onRebalance(l),
        disconnect: () => c.disconnect(),
        connect: () => {
          const call = c.connect();
          made(name, 'connect');
          return call;
        },
        subscribe: (s) => {
          const call = c.subscribe(s);
          made(name, 'subscribe');
          return call;
        },
        run: (r) => {
          const call = c.run(r);
          made(name, 'run');
          return call;
        },
      };
      return wrapped;
    },
    producer() {
      const p = inner.producer();
      const wrapped: ProducerPort = {
        ...p,
        send: (r) => p.send(r),
        disconnect: () => p.disconnect(),
        connect: () => {
          const call = p.connect();
          made('producer', 'connect');
          return call;
        },
      };
      if (p.sendBatch) wrapped.sendBatch = (r) => p.sendBatch!(r);
      return wrapped;
    },
  };
}

async function main(): Promise<void> {
  const descriptor = JSON.parse(process.env.STOP_DESCRIPTOR!) as ConsumerDescriptor;
  const stopAt = Number(process.env.STOP_AT);
  const delayMs = Number(process.env.STOP_DELAY_MS ?? '0');
  const client = clientNamed(process.env.STOP_CLIENT!);
  const steps: string[] = [];
  let stopped: Promise<void> | undefined;
  const consumer = createRetryingConsumer(descriptor, {
    kafka: watchedPort(client.port(process.env.STOP_USER!, { sessionTimeout: 30_000 }), (name, step) => {
      steps.push(`${name} ${step}`);
      if (steps.length - 1 === stopAt) setTimeout(() => (stopped = consumer.stop()), delayMs);
    }),
    handler: async () => undefined,
  });
  const started = await consumer.start().then(
    () => 'fulfilled',
    (error: unknown) => `rejected: ${String(error)}`,
  );
  // start() may end before the delay passed (a step that resolves at once): stop() comes then.
  while (stopped === undefined && steps.length > stopAt) await new Promise((resolve) => setTimeout(resolve, 10));
  if (stopped === undefined) stopped = consumer.stop();
  const stop = await stopped.then(
    () => 'fulfilled',
    (error: unknown) => `rejected: ${String(error)}`,
  );
  process.stdout.write(`${JSON.stringify({ started, stop, steps })}\n`);
}

if (process.env.STOP_DESCRIPTOR) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
