import type { RetryEvent } from '../../src/runtime/events';
import type { OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { confluentCommits } from './confluent-commits-double';
import { httpError, valueOf } from './harness';
import { consumer } from './park-by-key-world';

/**
 * Found by attack 11. On the Confluent client, an outage that loses two commits of one
 * partition's state is guessed "too large" and lowers the consumer's one budget; the next load
 * of ANOTHER partition then sheds that partition's stored state, which the broker keeps
 * (its limit is the default 4096): its holds are given up and its keys' newer records run
 * before their retries. Before the shed that partition only paused at the lowered budget,
 * its order kept.
 *
 * Scenario (Confluent client, two partitions, broker limit the default): six keys of
 * partition 1 fail into the 1m tier (p1's state holds six keys, ~120 bytes). Then an outage:
 * partition 0's first hold commit (a:0 fails) is answered but not stored, twice: guessed too
 * large (commitConfirmed), the budget comes down to 43 bytes. A member joins: the group
 * rebalances. k2's newer record k2:new comes on partition 1.
 *
 * Seen: `parking-budget-lowered` (partition 0, 43 bytes), then `park-state-shed` of partition 1
 * at budget 43 ("over what the broker keeps now", which it is not) with all six holds dropped
 * (even one: the lost mark the second dropped hold sets pushes the first past 43), and k2:new
 * handled before k2:old's retry.
 *
 * At fault: key-parking.ts shedOverBudget() sheds against `budgetBytes`, which commitState()
 * lowers on a guessed refusal of any partition (the floor is the refusing partition's one hold).
 * docs/runtime.md says the Confluent client never lowers the budget under a stored state, so
 * never sheds; a guess from another partition does. Class: a guess acted on as a broker fact,
 * with a blast radius past the partition it was made on.
 *
 * Fix: shed only a state the broker refused as too large (a refusal it named, or on the
 * Confluent client none: the shed is of no use there), or keep the budget a guess lowers per
 * partition; a stored state over a budget lowered by a guess waits (paused, as before) instead.
 *
 * Fixed: only a state the broker refused by name (kafkajs), at its size or less, is shed
 * (key-parking.ts shedOverBudget, `refusedBytes`); a guessed refusal lowers the budget only.
 */
const NOW = 1_764_633_600_000;

describe('park-by-key on the Confluent client, an outage on one partition guessed "too large"', () => {
  it('sheds no other partition whose stored state the broker keeps: its keys keep their order', async () => {
    const clock = new VirtualClock(NOW);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = 'confluent';
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    let outage = false;
    const holdOfPartition0 = (o: OffsetCommit) => outage && o.topic === consumer.mainTopic && o.partition === 0 && /@/.test(o.metadata ?? '');
    // a:0 fails three times (on the main topic, as often as its hold commit is lost); each k_i:old once.
    const failing = new Map([['a:0', 3], ...Array.from({ length: 6 }, (_, i): [string, number] => [`k${i}:old`, 1])]);
    const retrying = createRetryingConsumer(consumer, {
      kafka: confluentCommits(broker, holdOfPartition0, 2),
      clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        const left = failing.get(label) ?? 0;
        if (left > 0) {
          failing.set(label, left - 1);
          handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        handled.push(label);
      },
    });
    for (let i = 0; i < 6; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from('old'), partition: 1 });
    await retrying.start();
    await broker.run({ stopWhen: () => handled.length === 6 });
    expect(Buffer.byteLength(broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 1) ?? '')).toBeGreaterThan(100);

    outage = true;
    broker.append(consumer.mainTopic, { key: Buffer.from('a'), value: Buffer.from('0'), partition: 0 });
    await broker.run({ stopWhen: () => events.some((e) => e.type === 'parking-budget-lowered') });
    outage = false;
    broker.rebalance(consumer.groups.main); // a member joins
    broker.append(consumer.mainTopic, { key: Buffer.from('k2'), value: Buffer.from('new'), partition: 1 });
    await broker.run({ until: NOW + 10 * 60_000 });
    await retrying.stop();

    expect(events.filter((e) => e.type === 'park-state-shed')).toEqual([]);
    expect(handled.indexOf('k2:old')).toBeGreaterThanOrEqual(0);
    expect(handled.indexOf('k2:new')).toBeGreaterThan(handled.indexOf('k2:old'));
  });
});
