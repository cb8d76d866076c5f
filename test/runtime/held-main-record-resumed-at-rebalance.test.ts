import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * Attack (s26, attack6) on ab0b805 "a held main record waits paused, its batch ended"
 * (main-pipeline.ts:162-172 holdPaused). A main record whose copy even the DLQ refuses as too
 * large is held: its partition is paused and, once the copy is acknowledged, sought to the first
 * record not taken and resumed. A rebalance ends the wait with `return` (line 167), leaving the
 * partition paused; nothing else resumes it (the main consumer's rebalance listener,
 * retrying-consumer.ts:367-370, only forgets). kafkajs keeps pauses across a rebalance (its
 * subscription state outlives the join; MemoryBroker.pausesSurviveRebalance plays it): the
 * partition comes back to this member paused and no record of it is ever delivered again.
 */
let maxMessageBytes = 2_000;
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

describe('a held main record and a rebalance on a client whose pauses outlive it (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (main-pipeline.ts:167, with retrying-consumer.ts:367-370): holdPaused returns on
  // progress.dropped without resuming, and the main consumer's rebalance handler does not resume
  // either; kafkajs keeps the pause, so the partition stays paused for good on this member (the
  // rebalance gave it back). STUCK: the held record is read again by no one, the 10 records after
  // it never run, the group's commit stays at 0 and the lag grows forever (a restart is the only
  // way out).
  // Class: a pause taken for a wait whose end is skipped on one exit path (rebalance); the tier
  // pipeline has the answer (tier-pipeline.ts:92-105 unpause() from forget()), the main pipeline
  // does not.
  // Fix: keep the set of main partitions paused by holdPaused; in MainPipeline.forget() (called
  // from the rebalance listener) resume each of them (a refused resume tried again on a timer, as
  // tier-pipeline's unpause does), and in holdPaused's dropped exit resume too (resuming a
  // partition another member now owns changes nothing).
  it('reads the partition again after the rebalance and, once the limit is raised, runs the records after the held one', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    broker.pausesSurviveRebalance = true;
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
        if (record.topic === consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
        succeeded.add(valueOf(record));
      },
    });
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    produce('k', `big${'x'.repeat(1_897)}`); // fits the main topic, no copy fits
    await retrying.start();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    for (let i = 0; i < 10; i++) produce(`k${i}`, `v${i}`);
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, ran: succeeded.size }).toEqual({ held: 1, ran: 0 });
    expect(broker.pausedPartitions(consumer.groups.main)).toEqual([`${consumer.mainTopic}-0`]);

    // The group rebalances (a member joins and leaves): the partition comes back to this member.
    broker.rebalance(consumer.groups.main);
    // The operator raises the DLQ's max.message.bytes.
    maxMessageBytes = 4_000;
    await broker.run({ stopWhen: () => succeeded.size === 10, until: clock.now() + 300_000, maxSteps: 5_000 }).catch(() => undefined);
    await broker.run({ until: clock.now() + 1_000 }).catch(() => undefined);
    await retrying.stop();
    expect({ ran: succeeded.size, committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) }).toEqual({ ran: 10, committed: 11 });
  }, 30_000);
});
