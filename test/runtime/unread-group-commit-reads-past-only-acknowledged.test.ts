import { GROUP_COMMIT_READ_TIMEOUT_MS } from '../../src/runtime/group-commit';
import { groupMember } from './group-member';
import { tierLogFinishedPastAcknowledged } from './tier-log-finished-past-acknowledged';

/**
 * Attack (s26, attack6) on groupCommitOf's read (group-commit.ts:18-39) and judgeLog
 * (group-commit.ts:57-61): a read of the group's commit that never answers (a coordinator that
 * moved in the rebalance and still loads its offsets; a client request stuck until its own
 * timeout) ends after GROUP_COMMIT_READ_TIMEOUT_MS as `undefined`, and judgeLog takes an unread
 * commit for this member's own: `committed === undefined` => read-past.
 *
 * Scenario (recreated-topic-commit-inside-window.test.ts, the attack5 case, with the read
 * hanging): A finished the old log to 104 with 100 acknowledged; the topic is recreated, B runs
 * the new log's 0-100 and commits 101; the partition comes back to A at 101 and A's read of the
 * group's commit hangs.
 */
describe('a recreated topic met when the group\'s commit cannot be read (attack6)', () => {
  // Found by attack (s26, attack6), fixed; was (group-commit.ts:59, `committed === undefined` counted as own; main-pipeline.ts:80-84
  // and partition-progress.ts:120): unread, the log is taken for the old one; resume(101) answers
  // "finished up to 104" and A seeks to 104. LOST: the new log's 101, 102 and 103 never run (up to
  // maxRecords per partition). The attack5 fix holds only while the read answers.
  // Class: an unknown (the read failed) resolved toward reading past (loss) rather than toward
  // running again (a duplicate, which the commit window bounds).
  // Fix: unread, read past only with proof of the same log (startsWhereItStarted, or the batch's
  // first record being the very record this member took at that offset: record-identity.ts);
  // otherwise run again from the batch's first record.
  it('runs the new log\'s records from where the partition resumes rather than reading past them', async () => {
    let readsHang = false;
    let hungReads = 0;
    const { consumer, clock, broker, ran, retrying, produce, mainCommit } = groupMember({
      commit: { intervalMs: 60_000, maxRecords: 5 },
      hooks: {
        committed: (topic, partitions, read, groupId) => {
          if (!readsHang || groupId !== consumer.groups.main) return read(topic, partitions);
          hungReads++;
          return new Promise<never>(() => {});
        },
      },
    });
    for (let i = 0; i < 104; i++) produce(`old-${i}`);
    await retrying.start();
    await broker.run({ stopWhen: () => ran.length >= 104 });
    expect(mainCommit()).toBe(100);

    broker.recreateTopic(consumer.mainTopic);
    for (let i = 0; i < 120; i++) produce(`new-${i}`);
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '101' }]);
    readsHang = true;
    broker.rebalance(consumer.groups.main);
    await broker.run({ until: clock.now() + GROUP_COMMIT_READ_TIMEOUT_MS + 120_000 });
    await retrying.stop();

    expect(hungReads).toBeGreaterThan(0);
    expect(ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 19 }, (_, i) => `new-${i + 101}`));
  });
  // The same on the tier path (retrying-consumer.ts:239-243, finished-offsets.ts:41-47): an unread
  // commit (undefined) with an acknowledged one is judged read-past, and has() takes the new tier
  // log's record 101 for one finished here: committed without running. LOST (the tier copy).
  it('tier path: with the group\'s commit unread, a new tier log\'s record inside the old window is not taken for one finished here', () => {
    const { finished, first } = tierLogFinishedPastAcknowledged();
    expect(finished.mustJudge(first)).toBe(true);
    let newLog = false;
    finished.judge(first, undefined, 100n, false, () => (newLog = true)); // the read hung: unread
    expect(newLog || !finished.has(first, 100n)).toBe(true);
  });
});
