/**
 * A worker for stop-during-start.test.ts: starts a retrying consumer on a real broker and
 * calls stop() while the `STOP_AT`-th call of start() (connect, subscribe or run, counted
 * over every client) is under way, `STOP_DELAY_MS` after it was made. Once both settled it
 * prints one JSON line and returns: the process must then exit on its own, with no client
 * of its left in a group.
 */
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { clientNamed } from './clients';
import { lifecyclePort } from '../helpers/lifecycle-port';
import type { LifecycleStep } from '../helpers/lifecycle-port';

/** The port, with a hook called as each connect, subscribe and run of start() is made (once the call began). */
function watchedPort(inner: KafkaPort, made: (client: string, step: LifecycleStep) => void): KafkaPort {
  return lifecyclePort(inner, (client, step, call) => {
    const pending = call();
    if (step !== 'disconnect') made(client, step);
    return pending;
  });
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
