import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/**
 * DEFECT (attack4, target 1). src/runtime/new-log.ts:10 `isNewLog` needs a commit the broker
 * acknowledged to *this* member (`acknowledged !== undefined && acknowledged > 0n`), but the
 * progress it would reset (main-pipeline.ts:72, partition-progress.ts:280-291 resume()) is built
 * from records the member read, acknowledged or not. Scenario: a member restarts (or is newly
 * assigned the partition) and reads it from the group's commit, 10, left by the previous run;
 * records 10-19 run; before this member's first commit of the partition is acknowledged
 * (within its commit interval, here 5 s; or while the coordinator refuses commits) the topic is
 * deleted and created again. The new log is read from 0, `acknowledged` is undefined, so it is
 * not taken for a new log: resume(0) answers "finished up to 20", the pipeline seeks to 20 and
 * commits 20. Records 0-19 of the new log never run: lost.
 * Class: "finished" offsets are trusted across logs unless an acknowledged commit of this member
 * proves them of the old log; the proof is missing exactly when the member has not committed yet.
 * Fix I would make: judge a new log against what the member knows the old log held, not only its
 * acknowledged commit: a batch from offset 0 below the offset where the progress started (the
 * group's committed offset it resumed from, `start` > 0) or below the acknowledged commit is a new
 * log (same rule in FinishedOffsets for the tier path, whose `upTo` is set before any ack).
 */
describe('a topic recreated before this member\'s first commit of it was acknowledged', () => {
  it.failing('runs the new log\'s first records instead of seeking past them to where the old log was finished', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });
    for (let i = 0; i < 20; i++) produce(`old-${i}`);
    // The previous run of the service committed 10 and stopped.
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '10' }]);

    const ran: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      commit: { intervalMs: 5_000 },
      handler: async (record: ConsumedRecord) => void ran.push(valueOf(record)),
    });
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length === 10 });
    expect(ran).toEqual(Array.from({ length: 10 }, (_, i) => `old-${i + 10}`));

    // Deleted and created again (Terraform replaced it) within the member's first commit interval.
    const b = broker as unknown as { logs: Map<string, unknown[][]>; committed: Map<string, Map<string, unknown>> };
    b.logs.set(consumer.mainTopic, [[]]);
    b.committed.get(consumer.groups.main)!.delete(`${consumer.mainTopic}\u00000`);
    broker.rebalance(consumer.groups.main);
    for (let i = 0; i < 25; i++) produce(`new-${i}`);
    await broker.run({ until: clock.now() + 60_000 });
    await retrying.stop();

    // Seen: new-20 .. new-24 only; the group committed 25, records new-0 .. new-19 skipped.
    expect(ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 25 }, (_, i) => `new-${i}`));
  });
});
