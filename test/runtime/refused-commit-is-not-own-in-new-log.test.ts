import { groupMember } from './group-member';

/**
 * Attack (s26, attack6) on db29e11 "a commit sent while its answer was lost counts as its own"
 * (offset-committer.ts:102 sentSinceAcknowledged, :174-175 added at send, :326-328 isOwnCommit; main-pipeline.ts:82-83, retrying-consumer.ts:241 for tiers).
 *
 * Scenario, in a group of two (member B played by the test, as in
 * recreated-topic-commit-inside-window.test.ts): member A's commit at 100 is acknowledged; the
 * interval's commit of 102 is REFUSED (the coordinator unavailable: surely not stored); A finishes
 * 102 and 103. The partition moves to B; the topic is deleted and created again; B runs the new
 * log's records 0-101 and commits 102. The partition comes back to A at 102.
 */
describe('a recreated topic whose new log another member committed at an offset this member once sent (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (offset-committer.ts:174-175 and :326-328, judged at main-pipeline.ts:82-83): 102 is in
  // sentSinceAcknowledged (sent, refused, never acknowledged), so isOwnCommit answers true for B's
  // commit in the NEW log; judgeLog answers read-past and A seeks to where it finished the OLD log
  // (104): the new log's records 102 and 103 never run and the commit passes them. LOST (up to
  // maxRecords per partition). Before db29e11 the same case ran again (102 !== acknowledged 100 and
  // the partition does not start where A started).
  // Class: "own commit" recognised by the offset number alone, which says nothing of which log it
  // was committed in; and an explicitly refused commit (never stored) still counts as sent.
  // Fix: prove ownership by identity, not by offset: keep, with each offset sent, the identity
  // (record-identity.ts) of the record at that offset when this member took it (it is the record
  // the group's commit points at), and count the group's commit as own only when the batch's first
  // record is that very record; or stamp each commit's metadata with a per-run token and compare
  // the metadata read back. Also drop an offset from sentSinceAcknowledged when its commit is
  // refused with a non-retriable/"not stored" error.
  it('runs the new log\'s records from the group\'s commit on, not from where this member finished the old log', async () => {
    const { consumer, clock, broker, ran, retrying, produce, mainCommit } = groupMember({ commit: { intervalMs: 60_000, maxRecords: 5 } });
    for (let i = 0; i < 102; i++) produce(`old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length >= 102 });
    expect(mainCommit()).toBe(100);
    // The interval's commit of 102 is refused: not stored.
    broker.refuseCommits(consumer.groups.main, 1);
    await broker.run({ until: clock.now() + 60_000 });
    expect(mainCommit()).toBe(100);
    produce('old-102');
    produce('old-103');
    await broker.run({ stopWhen: () => ran.length >= 104 });
    expect(mainCommit()).toBe(100);

    // Meanwhile, on member B: the topic recreated, its records 0-101 run there and committed.
    broker.recreateTopic(consumer.mainTopic);
    for (let i = 0; i < 120; i++) produce(`new-${i}`);
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '102' }]);
    broker.rebalance(consumer.groups.main);
    await broker.run({ until: clock.now() + 120_000 });
    await retrying.stop();

    expect(ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 18 }, (_, i) => `new-${i + 102}`));
  });
});
