import { groupMember } from './group-member';
import { tierLogFinishedPastAcknowledged } from './tier-log-finished-past-acknowledged';

/**
 * Attack (s26, attack5) on the new-log rule judged on the group's commit (main-pipeline.ts:76-82
 * groupViewOf, finished-offsets.ts:40-50 judge). The rule declares a new log only when the
 * group's commit is BELOW this member's acknowledged commit; at or above it, the log is taken
 * for the same one and everything this member finished is read past. But a member finishes up to
 * `maxRecords` records past its acknowledged commit (the commit window): a recreated topic whose
 * new log another member committed into that gap is taken for the old log.
 *
 * Scenario, in a group of two (member B played by the test, as in
 * recreated-topic-met-past-offset-zero.test.ts): member A finished main partition 0 up to 104,
 * its commit at 100 acknowledged, 100-103 waiting for the interval's commit; the partition moved
 * to B; the topic was deleted and created again (Terraform replaced it); B ran the new log's
 * records 0-100 and committed 101; the partition comes back to A, at 101.
 */
describe('a recreated topic whose new log another member committed past this member\'s acknowledged commit (attack5)', () => {
  // Found by attack (s26, attack5), fixed; was (main-pipeline.ts:78-81 and partition-progress.ts:117-118): committed (101) is not
  // below acknowledged (100), so groupViewOf answers readPast: true with no proof of the same log
  // beyond the offsets; resume(101) answers "finished up to 104" and A seeks to 104: the new
  // log's records 101, 102 and 103 never run, and the commit passes them. LOST (up to maxRecords,
  // 500 by default, per partition).
  // Class: offsets finished in one log trusted in another whenever the group's commit lands in
  // the window [acknowledged, next) — the attack4 fix closed only "below acknowledged".
  // Fix: read past only records whose identity is proven: keep the identity (record-identity.ts)
  // of each record taken past the acknowledged commit (at most the window), and read past only
  // when the batch's first record is the one taken at its offset; otherwise run from it.
  it('runs the new log\'s records from the group\'s commit on, not from where this member finished the old log', async () => {
    const { consumer, clock, broker, ran, retrying, produce, mainCommit } = groupMember({ commit: { intervalMs: 60_000, maxRecords: 5 } });
    for (let i = 0; i < 104; i++) produce(`old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length >= 104 });
    // The window committed each fifth record; 100-103 wait for the interval.
    expect(mainCommit()).toBe(100);

    // Meanwhile, on member B: the topic recreated, its records 0-100 run there and committed.
    broker.recreateTopic(consumer.mainTopic);
    for (let i = 0; i < 120; i++) produce(`new-${i}`);
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '101' }]);
    // The partition comes back to this member.
    broker.rebalance(consumer.groups.main);
    await broker.run({ until: clock.now() + 120_000 });
    await retrying.stop();

    // Seen: new-104 .. new-119 only (new-101 .. new-103 skipped), the group's commit at 120.
    expect(ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 19 }, (_, i) => `new-${i + 101}`));
  });

  // The same on the tier path (retrying-consumer.ts:238-239): judge() keeps what was finished
  // (committed 101 is not below acknowledged 100), and has() takes the new tier log's record 101
  // for one finished here: it is committed without running (the tier copy is LOST).
  it('tier path: a new tier log\'s record inside the old window is not taken for one finished here', () => {
    const { finished, first } = tierLogFinishedPastAcknowledged();
    expect(finished.mustJudge(first)).toBe(true);
    let newLog = false;
    finished.judge(first, 101n, 100n, false, () => (newLog = true)); // 101: another member's commit, not this one's
    expect(newLog || !finished.has(first, 100n)).toBe(true);
  });
});
