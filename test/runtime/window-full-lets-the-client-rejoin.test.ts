import { Registry } from 'prom-client';
import type { EachBatchPayload, KafkaPort, RunOptions } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/**
 * Found on the broker (s28, test/kafka/outage-with-publishes-in-flight.test.ts, the Confluent
 * client): after a broker outage the group's commits were not shown for minutes. The member
 * had to rejoin the group, and the Confluent client serves a rebalance only when its loop
 * fetches; but the commit window was full of records whose commits were refused, and the
 * runtime waited for room inside the batch, so the loop never fetched: no rejoin, no commit,
 * no room, for good (the test gave up after 120 s; kafkajs rejoins between batches as well).
 *
 * Modelled here: once the group's first commit is in, the member is fenced: every commit is
 * refused until the client's loop fetches again (the next eachBatch call), where it rejoins.
 */
function fencedUntilTheLoopFetches() {
  const consumer = billingDescriptor();
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
        if (groupId !== consumer.groups.main) return commit(offsets);
        if (fenced) throw new Error('the group coordinator does not show the commit; it goes out again');
        await commit(offsets);
        fenced = true; // the outage: this member must rejoin before its next commit counts
      };
      const run = c.run.bind(c);
      c.run = (runOptions: RunOptions) => {
        if (!('eachBatch' in runOptions) || groupId !== consumer.groups.main) return run(runOptions);
        const { eachBatch } = runOptions;
        return run({
          ...runOptions,
          eachBatch: async (batch: EachBatchPayload) => {
            // The loop fetched: the rebalance it owed is served before the batch is handed over.
            if (fenced) {
              fenced = false;
              rejoins++;
              broker.rebalance(groupId);
              return;
            }
            return eachBatch(batch);
          },
        });
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
    handler: async (record) => void ran.push(valueOf(record)),
  });
  for (let i = 0; i < 20; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), partition: 0 });
  return { consumer, broker, clock, retrying, ran, rejoins: () => rejoins };
}

describe('a full commit window whose commits need the member to rejoin first', () => {
  it('ends the batch so the client can rejoin, then commits every record; the window still bounds what is done and not committed', async () => {
    const w = fencedUntilTheLoopFetches();
    let mostUncommitted = 0;
    const committed = () => w.broker.committedOffset(w.consumer.groups.main, w.consumer.mainTopic, 0) ?? 0;
    await w.retrying.start();
    await w.broker.run({
      until: w.clock.now() + 60_000,
      maxSteps: 20_000,
      stopWhen: () => {
        mostUncommitted = Math.max(mostUncommitted, new Set(w.ran).size - committed());
        return committed() === 20;
      },
    });
    await w.retrying.stop();
    // Seen: 4 records run, the commit at 1, the batch waiting for room for good.
    expect(committed()).toBe(20);
    expect(new Set(w.ran).size).toBe(20);
    expect(w.rejoins()).toBeGreaterThan(0);
    // maxRecords, plus the record in hand.
    expect(mostUncommitted).toBeLessThanOrEqual(4);
  });
});
