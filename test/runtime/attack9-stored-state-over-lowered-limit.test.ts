import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, T0 } from './park-by-key-world';

/**
 * Found by attack (attack9). A park-by-key state stored while the group coordinator kept more
 * commit metadata than it keeps now could never be committed again: every operation of the
 * partition needed a commit of a state about as large as the stored one, each was refused,
 * the operation failed, the state was read again from the stored (too large) commit and the
 * same record ran again: 190 times in this test's 3,000 steps, without end, and p's other
 * retries and main records never ran.
 *
 * Scenario (kafkajs: the broker names the refusal OFFSET_METADATA_TOO_LARGE): during an
 * outage of a downstream, ten keys fail into the 1m tier: p's stored state holds ten keys
 * (~190 bytes). The broker's `offset.metadata.max.bytes` is then lowered to 120 (a rolling
 * config change; or the coordinator moves to a broker configured lower). The downstream is
 * back: z:0 (a free key) comes, and a minute on the ten retries come due and succeed.
 *
 * Fixed (src/runtime/shed-park-state.ts): a stored state over the budget is shed when loaded,
 * to the holds that fit, at its oldest parked record, and committed before a record runs.
 * The class is covered by the fault property "park-by-key whose stored state the broker's
 * lowered metadata limit no longer keeps" (faults.test.ts).
 */
function brokerWithMetadataMax(startBytes: number) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'kafkajs';
  broker.metadataMaxBytes = startBytes;
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  return { clock, broker, kafka: broker.port() };
}

describe('a park-by-key state stored before the broker\'s metadata limit was lowered under it', () => {
  it('is shed to a state the broker keeps: the partition goes on, each retry runs once, no record runs without end', async () => {
    const w = brokerWithMetadataMax(4096);
    const events: RetryEvent[] = [];
    const handled: string[] = [];
    let downstreamDown = true;
    const retrying = createRetryingConsumer(consumer, {
      kafka: w.kafka,
      clock: w.clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        if (downstreamDown) {
          handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        handled.push(label);
      },
    });
    const keys = Array.from({ length: 10 }, (_, i) => `key-${i}`);
    for (const k of keys) w.broker.append(consumer.mainTopic, { key: Buffer.from(k), value: Buffer.from('0'), partition: 0 });
    await retrying.start();
    await w.broker.run({ stopWhen: () => handled.length === keys.length });
    const stored = Buffer.byteLength(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0) ?? '');
    expect(stored).toBeGreaterThan(150); // ten keys held

    w.broker.metadataMaxBytes = 120; // the coordinator now keeps at most 120 bytes of metadata
    downstreamDown = false;
    w.broker.append(consumer.mainTopic, { key: Buffer.from('z'), value: Buffer.from('0'), partition: 0 });
    await w.broker.run({ until: T0 + 5 * 60_000, maxSteps: 3_000, stopWhen: () => handled.length > 200 }).catch(() => undefined);
    await retrying.stop().catch(() => undefined);

    // Before the fix: z:0 once, then key-0:0's retry 190 times and counting, key-1..9 never.
    const runs = (label: string) => handled.filter((h) => h === label).length;
    expect(keys.map((k) => runs(`${k}:0`))).toEqual(keys.map(() => 1));
    expect(runs('z:0')).toBeGreaterThanOrEqual(1);
    expect(runs('z:0')).toBeLessThanOrEqual(2); // its first commit was refused: it runs once more at most
    expect(events.filter((e) => e.type === 'park-state-shed')).toHaveLength(1);
    expect(Buffer.byteLength(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0) ?? '')).toBeLessThanOrEqual(120);
  });
});
