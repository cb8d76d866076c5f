import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { KafkaPort, OffsetCommit } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, T0 } from './park-by-key-world';

/**
 * Found by an attack (s25), kept as the regression: a broker whose offset.metadata.max.bytes is
 * smaller than a few holds take. Each refusal (OFFSET_METADATA_TOO_LARGE) lowers the
 * budget to one byte under what was sent; below the empty state plus ENTRY_ROOM (55 bytes)
 * every state, the empty one included, reads as over budget.
 */
function refusingPort(broker: MemoryBroker, maxBytes: number, refused: number[]): KafkaPort {
  const port = broker.port();
  return {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      const commitOffsets = c.commitOffsets.bind(c);
      c.commitOffsets = async (offsets: OffsetCommit[]) => {
        const largest = Math.max(0, ...offsets.map((o) => Buffer.byteLength(o.metadata ?? '')));
        if (largest > maxBytes) {
          refused.push(largest);
          throw Object.assign(new Error('The metadata field of the offset request was too large'), { name: 'KafkaJSProtocolError', type: 'OFFSET_METADATA_TOO_LARGE', code: 12, retriable: false });
        }
        return commitOffsets(offsets);
      };
      return c;
    },
  };
}

function setup(options: { brokerMaxBytes: number; parkingBudgetBytes?: number; events?: RetryEvent[] }) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'kafkajs';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const refused: number[] = [];
  const succeeded = new Set<string>();
  const retrying = createRetryingConsumer(consumer, {
    kafka: refusingPort(broker, options.brokerMaxBytes, refused),
    clock,
    random: () => 0.5,
    onEvent: (e) => options.events?.push(e),
    ...(options.parkingBudgetBytes === undefined ? {} : { parkingBudgetBytes: options.parkingBudgetBytes }),
    // The downstream is down for the main topic's first pass of the "fail" records, back for the tier.
    handler: async (record: ConsumedRecord) => {
      if (record.topic === consumer.mainTopic && valueOf(record).startsWith('fail')) throw httpError(503);
      succeeded.add(valueOf(record));
    },
  });
  const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  return { clock, broker, refused, succeeded, retrying, produce };
}

describe('park-by-key on a broker that keeps less commit metadata than two holds take never pauses a partition for good', () => {
  // Was (before the fix: key-parking.ts:190 overBudget, :315 the lowered budget): a refusal lowers the budget
  // below what the EMPTY state plus ENTRY_ROOM takes (15 + 40 bytes), so once every hold is
  // released the partition still reads as over budget: reconcile() pauses it with nothing held
  // and nothing parked, no release can ever come, and every later record waits forever.
  it('three keys fail at once under a 40-byte limit: all three retries succeed, and a later record runs', async () => {
    const s = setup({ brokerMaxBytes: 40 });
    ['a', 'b', 'c'].forEach((k) => s.produce(k, `fail-${k}`));
    s.produce('d', 'ok-d');
    await s.retrying.start();
    // An hour: the tier's delay many times over.
    await s.broker.run({ stopWhen: () => s.succeeded.size === 4, until: s.clock.now() + 3_600_000, maxSteps: 5_000 }).catch(() => undefined);
    const paused = s.broker.pausedPartitions(consumer.groups.main);
    await s.retrying.stop();
    expect(s.refused.length).toBeGreaterThan(0); // the broker's limit was reached
    // Seen: only fail-a succeeds; b's commit is refused, the budget drops to 45, b is sought
    // back and the partition paused; a's release leaves an empty state that is still "over
    // budget", so b, c and d never run again (b's tier copy is skipped as stale: no hold).
    expect({ succeeded: [...s.succeeded].sort(), paused }).toEqual({ succeeded: ['fail-a', 'fail-b', 'fail-c', 'ok-d'], paused: [] });
  });

  // Was, same class, reached by configuration alone: a parkingBudgetBytes under 55 pauses the
  // partition at its very first record (the empty state is "over budget"); nothing says why.
  it('a parkingBudgetBytes of 50 (more than one hold takes) still runs a record that succeeds', async () => {
    const s = setup({ brokerMaxBytes: 4096, parkingBudgetBytes: 50 });
    s.produce('a', 'ok-a');
    await s.retrying.start();
    await s.broker.run({ stopWhen: () => s.succeeded.has('ok-a'), until: s.clock.now() + 3_600_000, maxSteps: 5_000 }).catch(() => undefined);
    const paused = s.broker.pausedPartitions(consumer.groups.main);
    await s.retrying.stop();
    expect({ ran: s.succeeded.has('ok-a'), paused }).toEqual({ ran: true, paused: [] });
  });

  // The floor: a broker that keeps the empty state with a lost mark (21 bytes) but not one hold (about 33).
  it('under a 22-byte limit no key can be held: the retry still runs, later records run, and the runtime says why order is not kept', async () => {
    const events: RetryEvent[] = [];
    const s = setup({ brokerMaxBytes: 22, events });
    s.produce('a', 'fail-a');
    s.produce('b', 'ok-b');
    await s.retrying.start();
    await s.broker.run({ stopWhen: () => s.succeeded.size === 2, until: s.clock.now() + 3_600_000, maxSteps: 5_000 }).catch(() => undefined);
    const paused = s.broker.pausedPartitions(consumer.groups.main);
    await s.retrying.stop();
    const skipped = events.filter((e) => e.type === 'parking-hold-skipped');
    expect({ succeeded: [...s.succeeded].sort(), paused, told: skipped.length > 0, refusedAtMost: s.refused.length <= 2 }).toEqual({ succeeded: ['fail-a', 'ok-b'], paused: [], told: true, refusedAtMost: true });
  });
});
