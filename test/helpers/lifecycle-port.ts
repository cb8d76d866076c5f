import type { ConsumerPort, KafkaPort, ProducerPort } from '../../src/runtime/port';

export type LifecycleStep = 'connect' | 'subscribe' | 'run' | 'disconnect';

/** Makes one lifecycle call of a client (`call` makes it), as the test needs: gated, watched, counted. */
export type AroundStep = <T>(client: string, step: LifecycleStep, call: () => Promise<T>) => Promise<T>;

/**
 * `inner` whose clients make each connect, subscribe, run and disconnect through `around`
 * (clients are named `consumer <group>` and `producer`); every other call goes straight on.
 */
export function lifecyclePort(inner: KafkaPort, around: AroundStep): KafkaPort {
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
        connect: () => around(name, 'connect', () => c.connect()),
        subscribe: (s) => around(name, 'subscribe', () => c.subscribe(s)),
        run: (r) => around(name, 'run', () => c.run(r)),
        disconnect: () => around(name, 'disconnect', () => c.disconnect()),
      };
      return wrapped;
    },
    producer() {
      const p = inner.producer();
      const wrapped: ProducerPort = {
        ...p,
        send: (r) => p.send(r),
        connect: () => around('producer', 'connect', () => p.connect()),
        disconnect: () => around('producer', 'disconnect', () => p.disconnect()),
      };
      if (p.sendBatch) wrapped.sendBatch = (r) => p.sendBatch!(r);
      return wrapped;
    },
  };
}
