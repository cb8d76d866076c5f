import type { EachBatchPayload } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { coordinatorNotAvailable, memberPort, refusedCommits } from './group-member';
import { succeedingPipeline } from './succeeding-pipeline';

/**
 * Attack (s26, attack5) on the commit window's count (partition-progress.ts:121
 * `if (this.dropped) this.uncommittedFrom = offset`, :150-153 `uncommitted`).
 *
 * Scenario: a broker outage. Every commit is refused (the coordinator is gone), and sessions
 * expire, so the group rebalances again and again while the partition stays with this member.
 * The Confluent client resumes a partition it keeps at the last resolved offset, past the group's
 * commit (partition-progress.ts:33-34 says so; given-up-publish tests rely on it), so each
 * batch after a rebalance starts where the last one stopped.
 */
const MAX_RECORDS = 5;

describe('the commit window across rebalances while every commit is refused (attack5)', () => {
  // Found by attack (s26, attack5), fixed; was (partition-progress.ts:121): at a resume after a rebalance the window starts counting
  // from the batch's first offset, taken for "where the group's commit stood". On a client that
  // resumes past the commit, the records between the group's commit and that offset drop out of
  // the count: each rebalance gives the partition a fresh window of maxRecords, and with commits
  // refused nothing is ever committed. Four rebalances: 20 records taken past the group's commit
  // (none), all to run again after a crash, four times the bound. The outage test's 1,377-2,839
  // records not committed on the Confluent client are this shape.
  // Class: the window's floor taken from where the client resumed, not from the commit a crash
  // goes back to. Fix: at a resume after a rebalance set uncommittedFrom to the group's commit
  // groupViewOf read (GroupCommitView.committed; -1: the first record ever taken), and when it
  // is unread keep the lower of the old floor and the batch's first offset.
  it('takes at most maxRecords past the group\'s commit (and one per batch), however often the group rebalances', async () => {
    const clock = new VirtualClock(0);
    // A member of a group that never committed (its commit reads -1), every commit refused.
    const broker = new MemoryBroker(clock);
    broker.createTopic('t', 1);
    const consumer = memberPort(broker, { commitOffsets: refusedCommits(coordinatorNotAvailable) }).consumer('g');
    const { pipeline, commits, handled } = succeedingPipeline(consumer, clock, { intervalMs: 100, maxRecords: MAX_RECORDS });
    let resolved = -1;
    const batchFrom = (from: number): EachBatchPayload => ({
      topic: 't',
      partition: 0,
      messages: Array.from({ length: 20 }, (_, i) => ({ key: null, value: Buffer.from(String(from + i)), offset: String(from + i), timestamp: '0' })),
      resolveOffset: (offset) => void (resolved = Number(offset)),
      heartbeat: async () => {},
      isStale: () => false,
    });
    const settled = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };

    for (let rebalance = 0; rebalance < 4; rebalance++) {
      // The partition's batch, from where the client resumes it: the window fills, the commit is refused, the batch waits.
      const batch = pipeline.onBatch(batchFrom(resolved + 1));
      await settled();
      // Sessions expire: the group rebalances, and the partition stays here.
      pipeline.forget();
      commits.forget();
      await batch;
    }
    // Nothing was ever committed: a crash now runs every record taken again. Allowed: the window,
    // and the one record each batch takes before it sees the window full.
    const REBALANCES = 4;
    expect(new Set(handled).size).toBeLessThanOrEqual(MAX_RECORDS + REBALANCES);
  });
});
