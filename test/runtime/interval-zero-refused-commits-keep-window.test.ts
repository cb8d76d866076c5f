import { coordinatorNotAvailable, groupMember, refusedCommits } from './group-member';

/**
 * Attack (s26, attack5) on the commit window with `commit: { intervalMs: 0 }` (each record
 * committed on its own: what a team picks for the fewest duplicates). Scenario: a broker
 * outage; the coordinator refuses every commit (COORDINATOR_NOT_AVAILABLE, retriable), while
 * the partition leader still serves fetches.
 */
const MAX_RECORDS = 3;

jest.setTimeout(30_000);

describe('the commit window with intervalMs 0 while every commit is refused (attack5)', () => {
  // Found by attack (s26, attack5), fixed (a refusal is reported and its records stay in the window); was (offset-committer.ts:281 `if (policy.intervalMs <= 0) return commitPending();` before
  // any windowFull() check, and main-pipeline.ts:146-147 makeRoom's `await commit`, which throws
  // the refusal out of the batch): with intervalMs 0 the window is never consulted. Each record
  // is taken, its commit refused, the batch throws to the client (its offset already resolved in
  // onBatch's finally), and the client goes on with the next record. All 30 records are taken
  // while the group's commit stays at none: a crash runs 30 again, ten times maxRecords (3);
  // with intervalMs 100 the same outage stops the partition at 3. The mode chosen for the fewest
  // duplicates gives the most.
  // Class: the duplicate bound enforced on one code path (interval > 0) and not on the other.
  // Fix: markProgress (and mark) with intervalMs 0 commit, and when the commit is refused,
  // wait for room as with an interval (waitForRoom: the refused commit is retried on a timer),
  // rather than throwing the refusal to the client.
  it('takes at most maxRecords (and one) records past the group\'s commit', async () => {
    const { clock, broker, ran, retrying, produce, mainCommit } = groupMember({
      throwReaction: 'kafkajs',
      commit: { intervalMs: 0, maxRecords: MAX_RECORDS },
      hooks: { commitOffsets: refusedCommits(coordinatorNotAvailable) },
    });
    for (let i = 0; i < 30; i++) produce(`v${i}`, `k${i}`);
    await retrying.start();
    // The outage lasts a minute; the consumer waits on timers all along (the run does not settle).
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect(mainCommit()).toBeUndefined();
    expect(new Set(ran).size).toBeLessThanOrEqual(MAX_RECORDS + 1);
  });
});
