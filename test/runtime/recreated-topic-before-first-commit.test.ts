import { billingDescriptor } from './descriptor';
import { groupMember, notesWhereFailingOnMain } from './group-member';

/**
 * Found by attack (s26, attack4, target 1); fixed: at the first batch after a rebalance the group's commit is read, and without an acknowledged commit of this member finished records are read past only when the partition starts with the very record this member started at. Was: src/runtime/new-log.ts:10 `isNewLog` needs a commit the broker
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
  it('runs the new log\'s first records instead of seeking past them to where the old log was finished', async () => {
    const { consumer, clock, broker, ran, retrying, produce } = groupMember({ commit: { intervalMs: 5_000 } });
    for (let i = 0; i < 20; i++) produce(`old-${i}`);
    // The previous run of the service committed 10 and stopped.
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '10' }]);

    await retrying.start();
    await broker.run({ stopWhen: () => ran.length === 10 });
    expect(ran).toEqual(Array.from({ length: 10 }, (_, i) => `old-${i + 10}`));

    // Deleted and created again (Terraform replaced it) within the member's first commit interval.
    broker.recreateTopic(consumer.mainTopic);
    for (let i = 0; i < 25; i++) produce(`new-${i}`);
    await broker.run({ until: clock.now() + 60_000 });
    await retrying.stop();

    // Seen: new-20 .. new-24 only; the group committed 25, records new-0 .. new-19 skipped.
    expect(ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 25 }, (_, i) => `new-${i}`));
  });
});

/**
 * Found by attack (s26, attack4, target 1), the same class on the tier path; fixed as the main path (FinishedOffsets.judge). Was: src/runtime/finished-offsets.ts:36
 * calls isNewLog with the retry group's acknowledged offset, undefined until this member's first
 * tier commit is answered, while `upTo` (finished-offsets.ts:46-50) is set as soon as a tier record
 * is handled (retrying-consumer.ts:238-239). A tier topic recreated within the member's first
 * commit interval (a Terraform replacement of a tier: its partition count lowered) has its new
 * log's first retries taken for finished ones: committed without running, lost.
 * Fix I would make: as above, a record from offset 0 below what FinishedOffsets itself holds for
 * the partition (upTo > 0) is of a new log, acknowledged or not.
 */
describe('a tier topic recreated before this member\'s first tier commit was acknowledged', () => {
  it('runs the new tier log\'s first retries instead of committing them as finished', async () => {
    const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
    const { clock, broker, ran, retrying, produce } = groupMember({ consumer, commit: { intervalMs: 5_000 }, handler: notesWhereFailingOnMain(consumer.mainTopic) });
    for (let i = 0; i < 3; i++) produce(`fail-old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.filter((r) => r.startsWith('tier:')).length === 3 });
    expect(broker.committedOffset(consumer.groups.retry, consumer.tiers[0]!.topic, 0)).toBeUndefined(); // not committed yet

    const tier = consumer.tiers[0]!.topic;
    broker.recreateTopic(tier);
    for (let i = 0; i < 2; i++) produce(`fail-new-${i}`);
    await broker.run({ until: clock.now() + 5 * 60_000 });
    await retrying.stop();

    expect(broker.records(tier).map((r) => r.value?.toString())).toEqual(['fail-new-0', 'fail-new-1']);
    expect(broker.committedOffset(consumer.groups.retry, tier, 0)).toBe(2);
    // Seen: [] — both retries of the new tier log committed (offset 2) without running.
    expect(ran.filter((r) => r.startsWith('tier:fail-new'))).toEqual(['tier:fail-new-0', 'tier:fail-new-1']);
  });
});
