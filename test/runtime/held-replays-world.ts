import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, T0 } from './park-by-key-world';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * The park-by-key world of attack 12 and 13's kept-position tests: the in-memory broker as
 * kafkajs behaves, a send refused as too large past a per-topic limit the test sets (so a
 * record's copy can be held), and a handler that labels each record `key:first 3 chars of
 * its value`. `k:a` fails for good; `failsAlso` names the other runs that fail.
 */
export function heldReplaysWorld(failsAlso: (label: string, runsOf: (label: string) => number) => boolean = () => false) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'kafkajs';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  /** Topic -> the largest record it takes: a larger copy is refused as too large. */
  const limits = new Map<string, number>();
  const kafka: KafkaPort = checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > (limits.get(r.topic) ?? Infinity)))) throw tooLargeError();
  });
  const handled: string[] = [];
  const events: RetryEvent[] = [];
  const runsOf = (label: string) => handled.filter((h) => h.startsWith(label)).length;
  const start = async () => {
    const retrying = createRetryingConsumer(consumer, {
      kafka,
      clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const value = valueOf(record);
        const label = `${record.message.key?.toString()}:${value.slice(0, 3)}`;
        const fails = label === 'k:a' || failsAlso(label, runsOf);
        handled.push(fails ? `${label} FAIL` : label);
        if (fails) throw httpError(503);
      },
    });
    await retrying.start();
    return retrying;
  };
  return { clock, broker, limits, handled, events, runsOf, start };
}
