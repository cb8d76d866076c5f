import { FinishedOffsets } from '../../src/runtime/finished-offsets';
import type { CommittedOffset, ConsumerPort, EachBatchPayload, OffsetCommit } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { succeedingPipeline } from './succeeding-pipeline';

/**
 * Attack (s26, attack5) on the group-commit read at a partition's first batch after a
 * rebalance (main-pipeline.ts:76-82 groupViewOf, group-commit.ts:7-14 groupCommitOf).
 *
 * Scenario: a member finished records 0-19 of a partition and the broker acknowledged its
 * commit at 20. A rebalance (a broker outage) gives the partition back to it, and the client
 * hands out records below that commit, from 5 (@platformatic/kafka did after a rejoin, see
 * new-log.ts). The read of the group's commit fails once: the coordinator is still loading
 * after the outage, exactly when this read is made.
 */
const MAX_RECORDS = 5;

function batchOf(offsets: number[]): EachBatchPayload {
  return {
    topic: 't',
    partition: 0,
    messages: offsets.map((o) => ({ key: null, value: Buffer.from(String(o)), offset: String(o), timestamp: '0' })),
    resolveOffset: () => {},
    heartbeat: async () => {},
    isStale: () => false,
  };
}

const offsets = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function memberOf(intervalMs: number) {
  /** The group's commits, in the order the broker stored them. */
  const stored: number[] = [];
  let readsToFail = 0;
  const consumer = {
    commitOffsets: async (o: OffsetCommit[]) => {
      for (const c of o) stored.push(Number(c.offset));
    },
    committed: async (_topic: string, partitions: number[]): Promise<CommittedOffset[]> => {
      if (readsToFail > 0) {
        readsToFail--;
        throw Object.assign(new Error('The coordinator is loading and hence can\'t process requests'), { type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true });
      }
      return partitions.map((partition) => ({ partition, offset: String(stored.at(-1) ?? -1), metadata: null }));
    },
    pause: () => {},
    seek: () => {},
  } as unknown as ConsumerPort;
  const clock = new VirtualClock(0);
  const { pipeline, commits, handled } = succeedingPipeline(consumer, clock, { intervalMs, maxRecords: MAX_RECORDS });
  return {
    pipeline,
    commits,
    stored,
    handled,
    failNextRead: () => (readsToFail = 1),
    rebalance: () => {
      pipeline.forget();
      commits.forget();
    },
  };
}

describe('a failed read of the group commit after a rebalance (attack5)', () => {
  // Found by attack (s26, attack5), fixed; was (main-pipeline.ts:80-81, partition-progress.ts:117): groupCommitOf answers undefined
  // for any failed read (group-commit.ts:11-13, no retry), and groupViewOf then sets
  // readPast = false although this member holds an acknowledged commit (20) of the same log:
  // resume() takes `finished = offset`, so records 5-19, finished here and covered by the
  // acknowledged commit, run again. They are not in the commit window (uncommitted counts from
  // acknowledgedCommit), so the duplicates have no bound: every record between where the client
  // starts and this member's commit (962 in the platformatic outage test) runs again.
  // Class: one failed request of a read the decision depends on is taken as "no proof", and
  // "no proof" costs an unbounded replay. Fix: retry the read (with the publish backoff,
  // heartbeating) until it answers; with an acknowledged commit and a record above offset 0,
  // never fall back to running below that commit again.
  it('does not run again records it finished below its own acknowledged commit', async () => {
    const m = memberOf(100);
    await m.pipeline.onBatch(batchOf(offsets(0, 19)));
    await m.commits.flush();
    expect(m.stored.at(-1)).toBe(20);
    m.rebalance();
    m.failNextRead();
    await m.pipeline.onBatch(batchOf(offsets(5, 24)));
    const ranAgain = m.handled.filter((o, i) => m.handled.indexOf(o) !== i);
    expect(ranAgain).toEqual([]);
  });

  // Found by attack (s26, attack5), fixed; was (offset-committer.ts:294-301 forget() clears `highest`; keep() at :127-134 has no
  // floor): after the same failed read, with intervalMs 0 each record re-run commits at once,
  // and the first commit (offset 6) lands below the 20 the broker acknowledged to this very
  // member in this very log. The group's commit moves back 14 records: a crash now runs them
  // again too, and a member that later reads the group's commit (6) below its own acknowledged
  // one (20) declares a new log (groupViewOf :78). Class: the committer's "offsets only move
  // forward" rule is forgotten at every rebalance although `acknowledged` is kept. Fix: keep()
  // refuses an offset below acknowledged.get(key) unless startsOver() cleared it.
  it('never moves the group commit back below the commit the broker acknowledged to it', async () => {
    const m = memberOf(0);
    await m.pipeline.onBatch(batchOf(offsets(0, 19)));
    expect(m.stored.at(-1)).toBe(20);
    m.rebalance();
    m.failNextRead();
    await m.pipeline.onBatch(batchOf(offsets(5, 24)));
    expect(Math.min(...m.stored.slice(m.stored.indexOf(20)))).toBe(20);
  });

  // The same on the tier path (retrying-consumer.ts:238, finished-offsets.ts:49): judge() with
  // the group's commit unread (undefined) forgets what this member finished although its commit
  // (20) was acknowledged in this log, so has() answers false and the tier records 5-19, finished
  // and committed here, run again (their handler, and a second tier or DLQ copy of those that
  // fail). Same class and fix as above.
  it('tier path: a tier record finished below this member\'s acknowledged commit is not run again when the read fails', () => {
    const finished = new FinishedOffsets();
    const tierRecord = (offset: number): ConsumedRecord => ({
      topic: 't.retry.1m',
      partition: 0,
      message: { key: null, value: Buffer.from(String(offset)), offset: String(offset), timestamp: '0', headers: {} },
    });
    for (let i = 0; i < 20; i++) finished.has(tierRecord(i), i === 0 ? undefined : 20n);
    finished.add({ topic: 't.retry.1m', partition: 0, offset: '20' });
    finished.rebalanced();
    const first = tierRecord(5);
    finished.judge(first, undefined, 20n, false, () => {});
    expect(finished.has(first, 20n)).toBe(true);
  });
});
