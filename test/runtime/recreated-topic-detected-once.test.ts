import { billingDescriptor } from './descriptor';
import { groupMember, notesWhereFailingOnMain } from './group-member';

/**
 * A batch whose first offset is below the last commit the broker acknowledged is taken for a
 * new log (the topic deleted and created again), once: the committer then forgets what it knew
 * of the old log. It did not (attack3 of s25): the old log's acknowledged offset stayed the
 * yardstick, every batch of the new log below it revoked the progress again, abandoning the
 * publishes still in flight from the batches before, and the fresh progress committed past them.
 */
describe('a recreated main topic: a failed record of its first batch still reaches its retry tier', () => {
  // Record 0 of the new log fails and its tier publish is refused for a while; the second batch must not revoke it.
  it('the retry of the new log\'s first record is not abandoned by its second batch', async () => {
    const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
    const { clock, broker, ran, retrying, produce, mainCommit } = groupMember({ consumer, handler: notesWhereFailingOnMain(consumer.mainTopic) });

    for (let i = 0; i < 10; i++) produce(`old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length === 10 });
    await broker.run({ until: clock.now() + 1_000 });
    expect(mainCommit()).toBe(10);

    broker.recreateTopic(consumer.mainTopic);
    broker.batchSize = 2;
    broker.refuseWrites(consumer.tiers[0]!.topic, 2); // the tier refuses the copy for a moment
    produce('fail-new-0');
    for (let i = 1; i < 6; i++) produce(`new-${i}`);
    await broker.run({ until: clock.now() + 5 * 60_000 });
    await retrying.stop();

    expect(ran.filter((r) => r.startsWith('main:new') || r.startsWith('main:fail-new'))).toEqual(['main:fail-new-0', 'main:new-1', 'main:new-2', 'main:new-3', 'main:new-4', 'main:new-5']);
    // Seen: [] — record 0's tier copy was never written (its publish abandoned) and the main commit passed it.
    expect(ran.filter((r) => r.startsWith('tier:'))).toEqual(['tier:fail-new-0']);
    expect(mainCommit()).toBe(6);
  });
});
