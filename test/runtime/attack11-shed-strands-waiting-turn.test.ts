import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { emptyParkState, keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { valueOf } from './harness';
import { consumer, T0, tier1m } from './park-by-key-world';

/**
 * Found by attack 11. A shed that gives up every hold strands the tier records waiting their
 * turn behind one of them: nothing runs them in this generation, nor the key's newer records.
 *
 * Scenario (kafkajs, one generation, no rebalance): main partition 0's stored state is at
 * position 150, committed at 105: m's parked records 105..120 (m's retry ended while they were
 * not yet read again, after a reload), and k held at 130 (k's retry waits in the 1m tier). A
 * record of k replayed from the DLQ comes due: k is held, so it waits its turn. The broker's
 * `offset.metadata.max.bytes` then comes down to 60: m's next commit is refused as too large,
 * the operation fails, and read again the stored state is shed (at 105, no parked record, and
 * k's hold at 130 given up: it is past 105, "its record is read again").
 *
 * Seen: the replayed record of k never runs, nor k@130 read again (parked behind the replayed
 * record's turn), nor k@150 and k@151; k's retry copy of 130 is skipped as stale (k is not
 * held). The run goes idle with main committed at 130 (k parked at 130, 150, 151, not held) and
 * the 1m tier at 0. No hold is left to release and hold expiry has none to expire: k waits
 * until a rebalance or a restart happens to come; every later record of k parks meanwhile, and
 * once they fill the budget the partition pauses (for good, in a stable group). Where the shed
 * keeps a hold, the turn waits only until that other key's retry ends (a release runs
 * drainFreeKeys): a delay, not a stop.
 *
 * At fault: key-parking.ts shedOverBudget()/load(): the shed frees keys (drops holds) but
 * leaves the generation's tier turns waiting on them; only a release (drainFreeKeys after a
 * tier record's release, releaseExpired) runs a waiting turn. Class: a missed wake-up: a
 * state change that frees a key without the drain every other freeing does.
 *
 * Fix: a shed that drops the hold of a key with a waiting turn runs drainFreeKeys once that
 * key's turn may go (or, simpler, forgets the generation's turns of p and seeks p's tier
 * partitions back to their commits, which the turns held at the oldest waiting record, so
 * those records are read again and judged under the shed state).
 *
 * Fixed: a shed that freed keys runs their waiting tier records at once (key-parking.ts load,
 * drainFreeKeys after shedOverBudget).
 */
describe('a stored state shed under a lowered metadata limit while a replayed record waits its turn', () => {
  const k = Buffer.from('k');

  function world() {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = 'kafkajs';
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    // Main offsets 0..151: m at 105..120, k at 130, 150 and 151, other keys elsewhere.
    const keyAt = (offset: number) => (offset >= 105 && offset <= 120 ? 'm' : offset === 130 || offset >= 150 ? 'k' : `x${offset}`);
    for (let offset = 0; offset <= 151; offset++) broker.append(consumer.mainTopic, { key: Buffer.from(keyAt(offset)), value: Buffer.from(String(offset)), partition: 0 });
    const stored = emptyParkState(150n);
    for (let offset = 105n; offset <= 120n; offset++) stored.parked.set(offset, keyHash(Buffer.from('m')));
    stored.held.set(keyHash(k), 130n);
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '105', metadata: parkStateMetadata(stored) }]);
    const tierHeaders = (originalOffset: number, dueAt: number) => ({
      [HEADERS.attempt]: '2',
      [HEADERS.dueAt]: String(dueAt),
      [HEADERS.originalTopic]: consumer.mainTopic,
      [HEADERS.originalPartition]: '0',
      [HEADERS.originalOffset]: String(originalOffset),
    });
    // The replayed record of k (its main record 40 reached the DLQ long ago), due now; k's retry of 130, due in a minute.
    broker.append(tier1m!.topic, { key: k, value: Buffer.from('replayed'), partition: 0, headers: { ...tierHeaders(40, T0), [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/0:7` } });
    broker.append(tier1m!.topic, { key: k, value: Buffer.from('130'), partition: 0, headers: tierHeaders(130, T0 + 60_000) });
    return { clock, broker };
  }

  it('runs the replayed record, k@130 and k@150..151 once the shed has freed k', async () => {
    const w = world();
    const events: RetryEvent[] = [];
    const handled: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: w.broker.port(),
      clock: w.clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => void handled.push(`${record.message.key?.toString()}:${valueOf(record)}`),
    });
    await retrying.start();
    // The replayed record comes due while k is held at 130: it waits its turn.
    await w.broker.run({ stopWhen: () => events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
    expect(handled).not.toContain('k:replayed');

    w.broker.metadataMaxBytes = 60;
    await w.broker.run({ until: T0 + 10 * 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop().catch(() => undefined);

    expect(events.filter((e) => e.type === 'park-state-shed')).toHaveLength(1);
    expect(handled).toContain('k:replayed');
    expect(handled).toContain('k:130');
    expect(handled).toContain('k:150');
    expect(handled).toContain('k:151');
  });
});
