import { Registry } from 'prom-client';
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
 * The coalescing producer sends the copies of several failed records in one request. It split
 * a refused request one copy at a time only for 'unknown-partition' and rejected every entry
 * with a too-large refusal (attack3 of s25). Kafka's
 * max.message.bytes bounds a partition's record BATCH, so two copies that each fit are refused
 * together as MESSAGE_TOO_LARGE when they share a request to one tier partition (and one
 * oversized copy fails every neighbour in its request). Each record's publish loop then takes
 * the request's refusal for its own: trimmed, sent to the DLQ with reason too-large, and
 * refused there again the same way (they are resent at once, so together again): held, the
 * main partition stopped for good, for records each of which the tier would have kept.
 */
const MAX_BATCH_BYTES = 2_000;
/** As Kafka judges max.message.bytes: per partition's record batch of the request; a request takes a few ms. */
function batchLimitedBroker(broker: MemoryBroker, clock: VirtualClock): KafkaPort {
  return checkedSends(broker, async (records) => {
    await clock.sleep(5);
    const perPartition = new Map<string, number>();
    for (const { topic, messages } of records) {
      for (const m of messages) {
        const id = `${topic}/${m.partition ?? 'any'}`;
        perPartition.set(id, (perPartition.get(id) ?? 0) + messageBytes(m));
      }
    }
    if ([...perPartition.values()].some((bytes) => bytes > MAX_BATCH_BYTES)) throw tooLargeError();
  });
}

describe('failed records whose copies each fit their tier, sent in one request', () => {
  // A refusal of the whole request is no verdict on each copy: the request is split one by one.
  it('go to their tier, not to the DLQ or held', async () => {
    const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const ranOnTier: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: batchLimitedBroker(broker, clock),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (record.topic !== consumer.mainTopic) {
          ranOnTier.push(valueOf(record).slice(0, 4));
          return;
        }
        if (valueOf(record).startsWith('m')) throw httpError(503);
      },
    });
    // Five records of 1,100 bytes: each copy (with its headers) is well under the tier's 2,000.
    for (const name of ['m1', 'm2', 'm3', 'm4', 'm5']) broker.append(consumer.mainTopic, { key: Buffer.from(name), value: Buffer.from(`${name}-${'x'.repeat(1_097)}`), partition: 0 });
    for (let i = 0; i < 5; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(`ok${i}`), partition: 0 });
    await retrying.start();
    await broker.run({ until: clock.now() + 10 * 60_000, maxSteps: 20_000 }).catch(() => undefined);
    await retrying.stop();

    const outcome = {
      held: events.filter((e) => e.type === 'publish-held').length,
      dlq: broker.records(consumer.dlqTopic, 0).length,
      retried: [...ranOnTier].sort(),
      committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0),
    };
    // Seen: m1 alone in its request reaches the tier; m2-m5, sent together, are refused as one
    // and trimmed; resent, m2 goes alone (tier), m3-m5 together again: refused, dead-lettered with
    // reason too-large; m4 and m5 refused together by the DLQ too: held (the partition stopped,
    // 30 s each), then dead-lettered alone. { held: 2, dlq: 3, retried: ['m1-x', 'm2-x'], committed: 10 }:
    // three records that needed one more try are in the DLQ, with no failure text.
    expect(outcome).toEqual({ held: 0, dlq: 0, retried: ['m1-x', 'm2-x', 'm3-x', 'm4-x', 'm5-x'], committed: 10 });
  }, 30_000);
});
