import { billingDescriptor } from './descriptor';
import { groupMember, notesWhereFailingOnMain } from './group-member';

/**
 * Found by an attack (s25), kept as the regression: a topic deleted and created again while the consumer runs (a Terraform
 * replacement: a partition count lowered, a config that forces a new topic; or a dev broker
 * that lost its disk). Kafka drops the group's offsets of a deleted topic, the group
 * rebalances, and the new topic's offsets start at 0 again. What "this member finished up
 * to offset N" meant for the old topic says nothing of the new one.
 */
function setup() {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
  return groupMember({ consumer, handler: notesWhereFailingOnMain(consumer.mainTopic) });
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
    expect(s.mainCommit()).toBe(10);

    s.broker.recreateTopic(s.consumer.mainTopic);
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

    s.broker.recreateTopic(s.consumer.tiers[0]!.topic);
    for (let i = 0; i < 2; i++) s.produce(`fail-new-${i}`);
    await s.broker.run({ until: s.clock.now() + 5 * 60_000 });
    await s.retrying.stop();
    // Seen: [] (both retries committed in the new tier without running).
    expect(s.ran.filter((r) => r.startsWith('tier:fail-new'))).toEqual(['tier:fail-new-0', 'tier:fail-new-1']);
  });
});
