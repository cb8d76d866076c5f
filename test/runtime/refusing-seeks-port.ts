import type { ConsumerPort, KafkaPort } from '../../src/runtime/port';

/** The broker's port whose consumers refuse a seek to `offset` `times` times (then take it). */
export function refusingSeeks(port: KafkaPort, refusal: { offset: string; times: number; refused: number }): KafkaPort {
  return {
    ...port,
    consumer: (groupId, options) => {
      const consumer = port.consumer(groupId, options);
      return new Proxy(consumer, {
        get(target, name, receiver) {
          if (name !== 'seek') {
            const value = Reflect.get(target, name, receiver) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          }
          return (at: Parameters<ConsumerPort['seek']>[0]) => {
            if (at.offset === refusal.offset && refusal.times > 0) {
              refusal.times--;
              refusal.refused++;
              throw new Error('Erroneous state');
            }
            target.seek(at);
          };
        },
      });
    },
  };
}
