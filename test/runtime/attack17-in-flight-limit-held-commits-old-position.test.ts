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
 * Found by attack 17: LOST records (attack 16's recreated-main-held case, reached another way).
 *
 * Scenario: as attack16-recreated-main-held-copy-commits-old-position (a at 0 runs, big at 1 is
 * held, no copy of it fits; the main topic is deleted and created again with no rebalance, the
 * operator raises the DLQ's limit before the new log has a record; four records land, then a
 * deploy), with `maxPublishesInFlight: 1`. big's publish fills the partition's places in flight,
 * so its batch waits inside eachBatch for an acknowledgement, and holdAt pauses the partition
 * while that batch still runs.
 *
 * Seen: the group's commit of the new, empty log is 2, and after the restart n0 and n1 never run.
 * When the held copy is acknowledged, publishInBackground commits nothing (heldPaused), but the
 * waiting batch wakes, takes big (taken, lastTaken) and calls commits.markProgress: the old log's
 * committable offset, 2, goes out onto the new log before holdPaused's resume judges the log.
 * (Gating that markProgress on heldPaused/resumedAtAnchor, tried locally and reverted, makes
 * this test pass.)
 *
 * Code at fault: src/runtime/main-pipeline.ts onBatch, the markProgress after a record is taken
 * (and the maxInFlight wait before it, which does not end on progress.holding): the commit gate
 * added in publishInBackground is not applied to a batch that outlives the pause. (makeRoom's
 * markProgress is not gated either, but its loop ends once the partition is holding; not shown.)
 *
 * Class: an offset of the old log committed onto the new one (attack 9/10/12/14/15/16's family):
 * one commit path gated, the others not.
 *
 * Fix I'd make: gate the commit in one place for every caller (a partition paused for a hold,
 * or resumed at its anchor and not yet judged, is left out by markProgress itself, e.g. a
 * `commitsHeld` set the committer's sendPending skips), and end the maxInFlight wait on
 * progress.holding as the room wait does: the batch breaks, the partition waits paused. That
 * clause alone (`&& !progress.holding` in the maxInFlight wait) makes this test pass, tried
 * locally and reverted; see attack17-in-flight-limit-held-keeps-batch-slot, the same wait's stall.
 *
 * Fixed (e84b88c): the wait for room in flight ends when the partition is holding, and the
 * partition then waits paused, out of the client's slot.
 */
let maxMessageBytes = 2_000;
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

describe('unordered, one publish in flight per partition: a main topic created again (no rebalance) while one of its records is held', () => {
  it('commits nothing of the old log onto the new one from the batch that waited through the hold, so a restart runs each new record', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded: string[] = [];
    const start = async () => {
      const retrying = createRetryingConsumer(consumer, {
        kafka: refusingLargeCopies(broker),
        clock,
        registry: new Registry(),
        random: () => 0.5,
        maxPublishesInFlight: 1,
        onEvent: (e) => events.push(e),
        handler: async (record: ConsumedRecord) => {
          if (record.topic === consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
          succeeded.push(valueOf(record));
        },
      });
      await retrying.start();
      return retrying;
    };
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    produce('a', 'a');
    produce('k', `big${'x'.repeat(1_897)}`); // fits the main topic, no copy fits
    let retrying = await start();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, ran: succeeded }).toEqual({ held: 1, ran: ['a'] });

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes before any record lands in the new log
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect(events.filter((e) => e.type === 'routed').length).toBe(1); // big's copy went out
    // Seen: 2, the old log's position, committed onto the new (empty) log by the batch that waited.
    const committedOnNewLog = broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0);
    for (let i = 0; i < 4; i++) produce(`n${i}`, `n${i}`); // the new log's offsets 0 to 3
    await retrying.stop();
    retrying = await start(); // a deploy (or any rebalance) reads the new log from the group's commit
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    expect({ pastNewLogStart: (committedOnNewLog ?? 0) > 0, ran: succeeded }).toEqual({ pastNewLogStart: false, ran: ['a', 'n0', 'n1', 'n2', 'n3'] });
  }, 30_000);
});
