import type { Clock } from '../../src/runtime/clock';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { httpError, valueOf } from './harness';
import { consumer } from './park-by-key-world';
import type { world } from './park-by-key-world';

/** The world's clock as a member whose wall clock is `skewMs` off (ahead when positive): same timers, another now. */
export function skewedClock(clock: Clock, skewMs: number): Clock {
  return { now: () => clock.now() + skewMs, setTimer: (ms, fn) => clock.setTimer(ms, fn), sleep: (ms) => clock.sleep(ms) };
}

/** Starts a member of the park-by-key world (its handler: `failOnce`, `alwaysFail`) whose clock is `skewMs` off. */
export async function startSkewed(w: ReturnType<typeof world>, skewMs: number): Promise<RetryingConsumer> {
  const retrying = createRetryingConsumer(consumer, {
    kafka: w.broker.port(),
    clock: skewedClock(w.clock, skewMs),
    random: () => 0.5,
    onEvent: (e) => w.events.push(e),
    handler: async (record: ConsumedRecord) => {
      const label = `${record.message.key?.toString()}:${valueOf(record)}`;
      if (w.failOnce.delete(label) || w.alwaysFail.has(label)) {
        w.handled.push(`${label} FAIL`);
        throw httpError(503);
      }
      w.handled.push(label);
    },
  });
  await retrying.start();
  return retrying;
}
