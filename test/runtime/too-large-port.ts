import type { KafkaPort, OutgoingMessage } from '../../src/runtime/port';
import type { MemoryBroker } from '../../src/simulate/memory-broker';

type Records = { topic: string; messages: OutgoingMessage[] }[];

/** A record's size as max.message.bytes counts it, near enough: key, value, header names and values. */
export const messageBytes = (m: OutgoingMessage) =>
  (m.key?.length ?? 0) + (m.value?.length ?? 0) + Object.entries(m.headers ?? {}).reduce((n, [k, v]) => n + k.length + (Array.isArray(v) ? v : [v]).reduce((s, x) => s + Buffer.byteLength(x as Buffer | string), 0), 0);

/** The refusal kafkajs throws for a request over max.message.bytes. */
export function tooLargeError(): Error {
  return Object.assign(new Error('The request included a message larger than the max message size the server will accept'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false });
}

/**
 * The broker's port whose producer first asks `check` about every request (send and
 * sendBatch alike, as a list of records); `check` throws to refuse it, or delays it.
 */
export function checkedSends(broker: MemoryBroker, check: (records: Records) => void | Promise<void>, topicIds: 'fetch' | 'none' = 'none'): KafkaPort {
  const port = broker.port({ topicIds });
  return {
    consumer: (groupId, options) => port.consumer(groupId, options),
    producer: () => {
      const p = port.producer();
      return {
        connect: () => p.connect(),
        disconnect: () => p.disconnect(),
        send: async (record) => {
          await check([record]);
          return p.send(record);
        },
        sendBatch: async (records) => {
          await check(records);
          return p.sendBatch!(records);
        },
      };
    },
  };
}
