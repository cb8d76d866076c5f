import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * Found by an attack (s25), kept as the regression: a topic deleted and created again while the consumer runs (a Terraform
 * replacement: a partition count lowered, a config that forces a new topic; or a dev broker
 * that lost its disk). Kafka drops the group's offsets of a deleted topic, the group
 * rebalances, and the new topic's offsets start at 0 again. What "this member finished up
 * to offset N" meant for the old topic says nothing of the new one.
 */
type Internals = { logs: Map<string, unknown[][]>; committed: Map<string, Map<string, unknown>> };
function recreate(broker: MemoryBroker, topic: string, groups: string[]): void {
  const b = broker as unknown as Internals;
  b.logs.set(topic, b.logs.get(topic)!.map(() => []));
  for (const g of groups) for (const key of [...(b.committed.get(g)?.keys() ?? [])]) if (key.startsWith(`${topic}\u0000`)) b.committed.get(g)!.delete(key);
  for (const g of groups) broker.rebalance(g);
}

function setup() {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const ran: string[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka: broker.port(),
    clock,
    registry: new Registry(),
    random: () => 0.5,
    handler: async (record: ConsumedRecord) => {
      ran.push(`${record.topic === consumer.mainTopic ? 'main' : 'tier'}:${valueOf(record)}`);
      if (record.topic === consumer.mainTopic && valueOf(record).startsWith('fail')) throw httpError(503);
    },
  });
  const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });
  return { consumer, clock, broker, ran, retrying, produce };
}

describe('a topic deleted and created again under a running consumer: its first records run', () => {
  // Was (before the fix: partition-progress.ts:80-92 resume(), used by main-pipeline.ts:73-84): the main
  // partition's progress outlives rebalances and says "finished up to 10"; the new topic's
  // first batch starts at 0, so resume() answers "read on from 10" and the pipeline seeks
  // there and commits: the new topic's records 0-9 never run. Class: "finished" kept as a
  // bare offset across rebalances, with nothing that ties it to the log it was read from.
  // Fix: forget a partition's finished offset when the committed offset the group answers is
  // below what this member itself committed there (a topic cannot move back, a new one can),
  // or key it by topic id / log start (the client knows the topic id).
  it('main: the new topic\'s first records run', async () => {
    const s = setup();
    for (let i = 0; i < 10; i++) s.produce(`old-${i}`);
    await s.retrying.start();
    await s.broker.run({ stopWhen: () => s.ran.length === 10 });
    await s.broker.run({ until: s.clock.now() + 1_000 }); // committed
    expect(s.broker.committedOffset(s.consumer.groups.main, s.consumer.mainTopic, 0)).toBe(10);

    recreate(s.broker, s.consumer.mainTopic, [s.consumer.groups.main]);
    for (let i = 0; i < 5; i++) s.produce(`new-${i}`);
    await s.broker.run({ until: s.clock.now() + 60_000 });
    await s.retrying.stop();
    // Seen: [] (skipped, and committed at 10 of the new topic's 5 records).
    expect(s.ran.filter((r) => r.startsWith('main:new'))).toEqual(['main:new-0', 'main:new-1', 'main:new-2', 'main:new-3', 'main:new-4']);
  });

  // Was, same class (finished-offsets.ts, retrying-consumer.ts:224): the tier pipeline's
  // FinishedOffsets says "tier partition finished up to 3"; after the tier topic is created
  // again, its new records at offsets 0-2 are taken for finished ones and committed without
  // running: retries lost.
  it('tier: the new tier topic\'s first retries run', async () => {
    const s = setup();
    for (let i = 0; i < 3; i++) s.produce(`fail-old-${i}`);
    await s.retrying.start();
    await s.broker.run({ stopWhen: () => s.ran.filter((r) => r.startsWith('tier:')).length === 3 });
    await s.broker.run({ until: s.clock.now() + 1_000 });

    recreate(s.broker, s.consumer.tiers[0]!.topic, [s.consumer.groups.retry]);
    for (let i = 0; i < 2; i++) s.produce(`fail-new-${i}`);
    await s.broker.run({ until: s.clock.now() + 5 * 60_000 });
    await s.retrying.stop();
    // Seen: [] (both retries committed in the new tier without running).
    expect(s.ran.filter((r) => r.startsWith('tier:fail-new'))).toEqual(['tier:fail-new-0', 'tier:fail-new-1']);
  });
});
