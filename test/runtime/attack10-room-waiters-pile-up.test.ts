import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { PartitionProgress } from '../../src/runtime/partition-progress';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';

/**
 * Found by attack (attack10). Since eea4583 (a full commit window ends the batch at its 1 s
 * budget), every batch that finds the window full starts a NEW waitForRoom() loop
 * (offset-committer room()) and a makeRoom chain (main-pipeline roomBy) that "go on in the
 * background" and are never ended until room comes. While the group coordinator refuses
 * commits (its broker down, the partition leaders up: fetches go on), the client hands the
 * partition's batch again every second, so the waiters grow by one per partition per second
 * for the whole outage, and every commit retry (each 100 ms) wakes all of them, each counting
 * the window again (countAll over every partition). Work per commit retry grows linearly with
 * the outage's length (total work quadratic), memory too (a promise chain per batch); after an
 * hour's coordinator outage on 50 partitions: some 180,000 waiters, each woken ten times a second.
 * Regression of eea4583: at eea4583^ the same body reads [1805, 1800, 1800, 1800] (one waiter,
 * inside the batch; checked with git archive eea4583^).
 *
 * Scenario: unordered consumer, one partition, commit { intervalMs: 100, maxRecords: 3 }; the
 * main group's commits are refused from the start (the coordinator unavailable), 100 records
 * waiting. Four windows of 180 s of virtual time each; the window's records are counted on
 * every wake (PartitionProgress.uncommitted reads, one per waiter per wake for one partition).
 *
 * Seen: reads per 180 s window: 163,263, 487,260, 811,260, 1,135,260: +324,000 per window
 * (180 more waiters each), about 180 batches and nothing taken in each window.
 *
 * Code: src/runtime/main-pipeline.ts roomBy (`makeRoom(progress, commit)` with
 * `options.commits.room()` left running when settlesWithin gives up) and
 * src/runtime/offset-committer.ts room() (`windowFull() ? waitForRoom() : undefined`: a new
 * loop per call, each parked in `waiting` and re-parked on every wake while `refused`).
 *
 * Class: a bounded wait that abandons, instead of sharing, the work it started: each timeout
 * leaks the waiter it gave up on (resource growth proportional to the fault's duration).
 *
 * Fix I'd make: one shared room promise: room() returns the same in-flight waitForRoom() while
 * one is pending (memoise it until it settles), and roomBy keeps one makeRoom per partition
 * (keyed by the PartitionProgress) that the next batch awaits again instead of starting another.
 */
describe('a commit window full while the coordinator refuses commits, the partition fetched every second', () => {
  it.failing('costs the same work per commit retry in the outage\'s tenth minute as in its third', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    for (let i = 0; i < 100; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), partition: 0 });
    const retrying = createRetryingConsumer(consumer, { kafka: broker.port(), clock, registry: new Registry(), random: () => 0.5, commit: { intervalMs: 100, maxRecords: 3 }, onEvent: () => {}, handler: async () => {} });
    const uncommitted = Object.getOwnPropertyDescriptor(PartitionProgress.prototype, 'uncommitted')!;
    let reads = 0;
    Object.defineProperty(PartitionProgress.prototype, 'uncommitted', {
      configurable: true,
      get(this: PartitionProgress) {
        reads++;
        return uncommitted.get!.call(this);
      },
    });
    try {
      broker.refuseCommits(consumer.groups.main, 1e9); // the coordinator unavailable for the whole test
      await retrying.start();
      const t0 = clock.now();
      const perWindow: number[] = [];
      for (let m = 1; m <= 4; m++) {
        const before = reads;
        await broker.run({ maxSteps: 1e6, stopWhen: () => clock.now() >= t0 + m * 180_000 });
        perWindow.push(reads - before);
      }
      await retrying.stop();
      // Seen: [163263, 487260, 811260, 1135260]: the work per window grows with the outage.
      expect(perWindow[3]!).toBeLessThan(perWindow[1]! * 1.5);
    } finally {
      Object.defineProperty(PartitionProgress.prototype, 'uncommitted', uncommitted);
    }
  }, 60_000);
});
