import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort, OutgoingMessage } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Attack (s25): a main record close to the topics' max.message.bytes. It fits the main topic;
 * its tier or DLQ copy carries the retry headers (error message, stack, origin) on top, and the
 * broker refuses it for good (MESSAGE_TOO_LARGE, not retriable). The publish loop treats every
 * refusal as passing: it retries forever.
 */
const MAX_MESSAGE_BYTES = 2_000;
const size = (m: OutgoingMessage) =>
  (m.key?.length ?? 0) + (m.value?.length ?? 0) + Object.entries(m.headers ?? {}).reduce((n, [k, v]) => n + k.length + (Array.isArray(v) ? v : [v]).reduce((s, x) => s + Buffer.byteLength(x as Buffer | string), 0), 0);

function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  const port = broker.port();
  const refuse = (messages: OutgoingMessage[]) => {
    if (messages.some((m) => size(m) > MAX_MESSAGE_BYTES)) {
      throw Object.assign(new Error('The request included a message larger than the max message size the server will accept'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false });
    }
  };
  return {
    consumer: (groupId, options) => port.consumer(groupId, options),
    producer: () => {
      const p = port.producer();
      return {
        connect: () => p.connect(),
        disconnect: () => p.disconnect(),
        send: async (record) => {
          refuse(record.messages);
          return p.send(record);
        },
        sendBatch: async (records) => {
          for (const r of records) refuse(r.messages);
          return p.sendBatch!(records);
        },
      };
    },
  };
}

describe('attack: a record whose tier and DLQ copies are larger than the broker accepts', () => {
  // DEFECT (publish-loop.ts:25-40, record-handler.ts:98-116): a refusal that can never pass
  // (MESSAGE_TOO_LARGE) is retried forever like an outage. The main partition's commit never
  // passes the record, while the records after it run and succeed: every restart or rebalance
  // runs all of them again, without bound (duplicates grow with the time since). The
  // operator sees only publish-failed events with reason "other". Class: permanent publish
  // refusals treated as transient. Fix: classify MESSAGE_TOO_LARGE / RECORD_LIST_TOO_LARGE /
  // INVALID_RECORD as permanent: send the DLQ copy without the bulky error headers (stack,
  // message), and when even that is refused, stop the partition with one clear error that
  // names the record and the topic's max.message.bytes.
  it.failing('does not hold the main commit before it for an hour while 100 later records succeed', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded = new Set<string>();
    const retrying = createRetryingConsumer(consumer, {
      kafka: refusingLargeCopies(broker),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (valueOf(record).startsWith('big')) throw httpError(503);
        succeeded.add(valueOf(record));
      },
    });
    // The main record itself fits (1,900 of 2,000 bytes).
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(`big${'x'.repeat(1_897)}`), partition: 0 });
    for (let i = 0; i < 100; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), partition: 0 });
    await retrying.start();
    await broker.run({ until: clock.now() + 3_600_000, maxSteps: 20_000 }).catch(() => undefined);
    await retrying.stop();
    const publishFailures = events.filter((e) => e.type === 'publish-failed').length;
    expect(succeeded.size).toBe(100);
    // Seen: nothing committed on the main partition after an hour, and a publish-failed event every 30 s.
    expect({ committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0), retriedForever: publishFailures > 20 }).toEqual({ committed: 101, retriedForever: false });
  });
});
