import { Registry } from 'prom-client';
import type { EachBatchPayload, EachMessagePayload, KafkaPort, RunOptions } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Found on the broker (s28, test/kafka/outage-with-publishes-in-flight.test.ts, the Confluent
 * client): after a broker outage the group's commits were not shown for minutes. The member
 * had to rejoin the group, and the Confluent client serves a rebalance only when its loop
 * fetches; but the commit window was full of records whose commits were refused, and the
 * runtime waited for room inside the batch, so the loop never fetched: no rejoin, no commit,
 * no room, for good (the test gave up after 120 s; kafkajs rejoins between batches as well).
 *
 * Modelled here: once the group's first commit is in, the member is fenced: every commit is
 * refused until the client's loop fetches again (the next eachBatch or eachMessage call),
 * where it rejoins. The retry group's case (tier records, one eachMessage call each) passed
 * before the fix too: kept as the guard of the same rule for the tiers.
 */
function fencedUntilTheLoopFetches(fencedGroup: 'main' | 'retry') {
  const consumer = billingDescriptor();
  const fencedId = consumer.groups[fencedGroup];
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'confluent';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  let fenced = false;
  let rejoins = 0;
  const inner = broker.port();
  const port: KafkaPort = {
    producer: () => inner.producer(),
    consumer: (groupId, options) => {
      const c = inner.consumer(groupId, options);
      const commit = c.commitOffsets.bind(c);
      c.commitOffsets = async (offsets) => {
        if (groupId !== fencedId) return commit(offsets);
        if (fenced) throw new Error('the group coordinator does not show the commit; it goes out again');
        await commit(offsets);
        fenced = true; // the outage: this member must rejoin before its next commit counts
      };
      const run = c.run.bind(c);
      /** The loop fetched: the rebalance it owed is served before the record or batch is handed over. */
      const rejoined = () => {
        if (!fenced) return false;
        fenced = false;
        rejoins++;
        broker.rebalance(groupId);
        return true;
      };
      c.run = (runOptions: RunOptions) => {
        if (groupId !== fencedId) return run(runOptions);
        if ('eachBatch' in runOptions) {
          const { eachBatch } = runOptions;
          return run({ ...runOptions, eachBatch: async (batch: EachBatchPayload) => (rejoined() ? undefined : eachBatch(batch)) });
        }
        const { eachMessage } = runOptions;
        return run({ ...runOptions, eachMessage: async (payload: EachMessagePayload) => (rejoined() ? undefined : eachMessage(payload)) });
      };
      return c;
    },
  };
  const ran: string[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka: port,
    clock,
    registry: new Registry(),
    random: () => 0.5,
    commit: { intervalMs: 100, maxRecords: 3 },
    handler: async (record) => {
      ran.push(`${record.topic === consumer.mainTopic ? 'main' : 'tier'}:${valueOf(record)}`);
      // With the retry group fenced, every main record fails once: the tiers then hold the work.
      if (fencedGroup === 'retry' && record.topic === consumer.mainTopic) throw httpError(503);
    },
  });
  for (let i = 0; i < 20; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), partition: 0 });
  return { consumer, broker, clock, retrying, ran, rejoins: () => rejoins };
}

describe('a full commit window whose commits need the member to rejoin first', () => {
  it.each(['main', 'retry'] as const)('%s group: ends the wait so the client can rejoin, then commits every record; the window still bounds what is done and not committed', async (fencedGroup) => {
    const w = fencedUntilTheLoopFetches(fencedGroup);
    const topic = fencedGroup === 'main' ? w.consumer.mainTopic : w.consumer.tiers[0]!.topic;
    const where = fencedGroup === 'main' ? 'main:' : 'tier:';
    let mostUncommitted = 0;
    const committed = () => w.broker.committedOffset(w.consumer.groups[fencedGroup], topic, 0) ?? 0;
    const done = () => new Set(w.ran.filter((r) => r.startsWith(where))).size;
    await w.retrying.start();
    await w.broker.run({
      until: w.clock.now() + 10 * 60_000,
      maxSteps: 50_000,
      stopWhen: () => {
        mostUncommitted = Math.max(mostUncommitted, done() - committed());
        return committed() === 20;
      },
    });
    await w.retrying.stop();
    // Seen: a few records run, the commit at 1, the member waiting for room for good.
    expect(committed()).toBe(20);
    expect(done()).toBe(20);
    expect(w.rejoins()).toBeGreaterThan(0);
    // maxRecords, plus the record in hand.
    expect(mostUncommitted).toBeLessThanOrEqual(4);
  });
});
