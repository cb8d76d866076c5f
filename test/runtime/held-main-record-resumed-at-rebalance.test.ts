import { BIG, HeldMainWorld } from './held-main-world';

/**
 * Attack (s26, attack6) on ab0b805 "a held main record waits paused, its batch ended"
 * (main-pipeline.ts:162-172 holdPaused). A main record whose copy even the DLQ refuses as too
 * large is held: its partition is paused and, once the copy is acknowledged, sought to the first
 * record not taken and resumed. A rebalance ends the wait with `return` (line 167), leaving the
 * partition paused; nothing else resumes it (the main consumer's rebalance listener,
 * retrying-consumer.ts:367-370, only forgets). kafkajs keeps pauses across a rebalance (its
 * subscription state outlives the join; MemoryBroker.pausesSurviveRebalance plays it): the
 * partition comes back to this member paused and no record of it is ever delivered again.
 */
describe('a held main record and a rebalance on a client whose pauses outlive it (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (main-pipeline.ts:167, with retrying-consumer.ts:367-370): holdPaused returns on
  // progress.dropped without resuming, and the main consumer's rebalance handler does not resume
  // either; kafkajs keeps the pause, so the partition stays paused for good on this member (the
  // rebalance gave it back). STUCK: the held record is read again by no one, the 10 records after
  // it never run, the group's commit stays at 0 and the lag grows forever (a restart is the only
  // way out).
  // Class: a pause taken for a wait whose end is skipped on one exit path (rebalance); the tier
  // pipeline has the answer (tier-pipeline.ts:92-105 unpause() from forget()), the main pipeline
  // does not.
  // Fix: keep the set of main partitions paused by holdPaused; in MainPipeline.forget() (called
  // from the rebalance listener) resume each of them (a refused resume tried again on a timer, as
  // tier-pipeline's unpause does), and in holdPaused's dropped exit resume too (resuming a
  // partition another member now owns changes nothing).
  it('reads the partition again after the rebalance and, once the limit is raised, runs the records after the held one', async () => {
    const world = new HeldMainWorld();
    const { broker, clock, consumer } = world;
    broker.pausesSurviveRebalance = true;
    const ran = () => new Set(world.succeeded).size; // distinct records: one run twice counts once
    world.produce(BIG); // fits the main topic, no copy fits
    await world.start();
    await world.runFor(60_000);
    for (let i = 0; i < 10; i++) world.produce(`v${i}`, `k${i}`);
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), ran: ran() }).toEqual({ held: 1, ran: 0 });
    expect(broker.pausedPartitions(consumer.groups.main)).toEqual([`${consumer.mainTopic}-0`]);

    // The group rebalances (a member joins and leaves): the partition comes back to this member.
    broker.rebalance(consumer.groups.main);
    // The operator raises the DLQ's max.message.bytes.
    world.maxMessageBytes = 4_000;
    await broker.run({ stopWhen: () => ran() === 10, until: clock.now() + 300_000, maxSteps: 5_000 }).catch(() => undefined);
    await broker.run({ until: clock.now() + 1_000 }).catch(() => undefined);
    await world.stop();
    expect({ ran: ran(), committed: world.committed() }).toEqual({ ran: 10, committed: 11 });
  }, 30_000);
});
