import { Registry } from 'prom-client';
import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Found by an attack (s25), kept as the regression: a main record close to the topics'
 * max.message.bytes fits the main topic, but its tier or DLQ copy carries the retry headers
 * on top and the broker refuses it for good (MESSAGE_TOO_LARGE, not retriable). The publish
 * loop treated that refusal as an outage and retried it forever, while the records after it
 * ran and every restart ran them all again. Now: the copy goes again without the failure's
 * text, then (a tier's) to the DLQ, and if the DLQ refuses it too the record is held, its
 * partition takes no later record, and the runtime says so (docs/runtime.md).
 */
let maxMessageBytes = 2_000;
/** Every copy over maxMessageBytes is refused, as Kafka's max.message.bytes does. */
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

function setup(fail: (value: string) => Error | undefined) {
  maxMessageBytes = 2_000;
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
      const error = record.topic === consumer.mainTopic ? fail(valueOf(record)) : undefined;
      if (error) throw error;
      succeeded.add(valueOf(record));
    },
  });
  const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  const copies = (topic: string) => broker.records(topic, 0).map((r) => ({ value: r.value?.toString('utf8').slice(0, 3), message: r.headers?.[HEADERS.errorMessage]?.toString() }));
  return { consumer, clock, broker, events, succeeded, retrying, produce, copies };
}

describe('a record whose tier or DLQ copy is larger than the broker accepts', () => {
  it('goes to its tier without the error message when only that made the copy too large', async () => {
    const s = setup((v) => (v.startsWith('big') ? httpError(503, `downstream 503: ${'detail '.repeat(60)}`) : undefined));
    s.produce('k', `big${'x'.repeat(1_697)}`); // 1,700 bytes: the copy with the 500-byte message is 2,200
    for (let i = 0; i < 10; i++) s.produce(`k${i}`, `v${i}`);
    await s.retrying.start();
    await s.broker.run({ until: s.clock.now() + 30_000, maxSteps: 5_000 }).catch(() => undefined);
    await s.retrying.stop();
    expect({ tier: s.copies(s.consumer.tiers[0]!.topic), committed: s.broker.committedOffset(s.consumer.groups.main, s.consumer.mainTopic, 0), ran: s.succeeded.size }).toEqual({ tier: [{ value: 'big', message: undefined }], committed: 11, ran: 11 });
  });

  it('goes to the DLQ, trimmed, when its tier refuses even the trimmed copy, and the records after it are committed', async () => {
    const s = setup((v) => (v.startsWith('big') ? httpError(503) : undefined));
    // The trimmed tier copy (with x-due-at) is refused, the trimmed DLQ copy (without) fits.
    s.produce('k', `big${'x'.repeat(1_842)}`);
    for (let i = 0; i < 10; i++) s.produce(`k${i}`, `v${i}`);
    await s.retrying.start();
    await s.broker.run({ until: s.clock.now() + 30_000, maxSteps: 5_000 }).catch(() => undefined);
    await s.retrying.stop();
    const routed = s.events.flatMap((e) => (e.type === 'routed' ? [e.destination.kind === 'dlq' ? e.destination.reason : e.destination.kind] : []));
    expect({ tier: s.copies(s.consumer.tiers[0]!.topic), dlq: s.copies(s.consumer.dlqTopic), routed, committed: s.broker.committedOffset(s.consumer.groups.main, s.consumer.mainTopic, 0) }).toEqual({ tier: [], dlq: [{ value: 'big', message: undefined }], routed: ['too-large'], committed: 11 });
  });

  it('is held when the DLQ refuses it too: its partition takes no later record, the runtime says so, and it goes on once the limit is raised', async () => {
    const s = setup((v) => (v.startsWith('big') ? httpError(503) : undefined));
    const startedAt = s.clock.now();
    s.produce('k', `big${'x'.repeat(1_897)}`); // 1,900 bytes: fits the main topic, no copy fits
    await s.retrying.start();
    await s.broker.run({ until: s.clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    for (let i = 0; i < 10; i++) s.produce(`k${i}`, `v${i}`);
    await s.broker.run({ until: s.clock.now() + 600_000, maxSteps: 5_000 }).catch(() => undefined);
    const held = {
      told: s.events.filter((e) => e.type === 'publish-held').length,
      ranAfter: s.succeeded.size,
      committed: s.broker.committedOffset(s.consumer.groups.main, s.consumer.mainTopic, 0) ?? 0,
      // Tried at the longest backoff, each refusal counted with reason too-large: no hot loop.
      elapsedMs: s.clock.now() - startedAt,
      tooLargeRefusals: s.events.filter((e) => e.type === 'publish-failed' && e.reason === 'too-large').length,
    };
    expect(held).toMatchObject({ told: 1, ranAfter: 0, committed: 0 });
    expect(held.tooLargeRefusals).toBeLessThanOrEqual(3 + held.elapsedMs / 30_000);
    // The operator raises the DLQ's max.message.bytes: the record goes to the DLQ, the partition on.
    maxMessageBytes = 4_000;
    await s.broker.run({ stopWhen: () => s.succeeded.size === 10, until: s.clock.now() + 120_000, maxSteps: 5_000 }).catch(() => undefined);
    await s.broker.run({ until: s.clock.now() + 1_000 }).catch(() => undefined);
    await s.retrying.stop();
    expect({ dlq: s.copies(s.consumer.dlqTopic).length, ran: s.succeeded.size, committed: s.broker.committedOffset(s.consumer.groups.main, s.consumer.mainTopic, 0) }).toEqual({ dlq: 1, ran: 10, committed: 11 });
  }, 30_000);
});
