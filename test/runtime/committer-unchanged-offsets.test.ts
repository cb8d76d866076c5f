import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { CommitPolicy } from '../../src/runtime/offset-committer';
import { PartitionProgress } from '../../src/runtime/partition-progress';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * #26/#28 leftover: a commit costs a round trip to the group coordinator. The committer used
 * to send the partition's offset again each time a record was marked, though it had not
 * moved (a record finished behind one still publishing, a park-by-key record whose state
 * did not change): with an interval of 0, one request per record for nothing.
 */
function setup(policy: CommitPolicy) {
  const clock = new VirtualClock(0);
  const broker = new MemoryBroker(clock);
  broker.createTopic('t', 2);
  const consumer = broker.port().consumer('g');
  const requests: OffsetCommit[][] = [];
  let refuse = 0;
  const counted = {
    ...consumer,
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuse > 0) {
        refuse--;
        throw new Error('The coordinator is loading');
      }
      requests.push(offsets);
      await consumer.commitOffsets(offsets);
    },
  };
  const committer = createOffsetCommitter(() => counted, clock, policy, () => {});
  const at = (partition: number, offset: number, metadata?: string): OffsetCommit => ({ topic: 't', partition, offset: String(offset), ...(metadata ? { metadata } : {}) });
  return { clock, requests, committer, at, refuseNext: (n: number) => (refuse = n), committed: (p: number) => broker.committedOffset('g', 't', p) };
}

describe('the offset committer, when a partition’s offset has not moved', () => {
  it('sends no request for a record whose offset was already committed, with an interval of 0', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    await s.committer.mark(s.at(0, 3));
    await s.committer.mark(s.at(0, 3));
    await s.committer.mark(s.at(0, 3));
    expect(s.requests).toEqual([[s.at(0, 3)]]);
  });

  it('sends no request for records finished behind one still publishing: the committable offset stays where it was', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    const progress = new PartitionProgress('t', 0);
    progress.finish(0n);
    await s.committer.markProgress(progress);
    const publishing = progress.publishing(1n);
    for (let offset = 2n; offset < 10n; offset++) {
      progress.finish(offset);
      await s.committer.markProgress(progress);
    }
    expect(s.requests).toEqual([[s.at(0, 1)]]);
    progress.acknowledged(publishing);
    await s.committer.markProgress(progress);
    expect(s.requests).toEqual([[s.at(0, 1)], [s.at(0, 10)]]);
  });

  it('sends the same offset again when its commit metadata changed (a park-by-key state)', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    await s.committer.mark(s.at(0, 3, 'krt-parked/1:a'));
    await s.committer.mark(s.at(0, 3, 'krt-parked/1:a'));
    await s.committer.mark(s.at(0, 3, 'krt-parked/1:b'));
    expect(s.requests).toEqual([[s.at(0, 3, 'krt-parked/1:a')], [s.at(0, 3, 'krt-parked/1:b')]]);
  });

  it('still sends an offset whose commit was refused, when its record is marked again', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3)); // refused: reported, kept for the retry
    expect(s.committed(0)).toBeUndefined();
    await s.committer.mark(s.at(0, 3));
    expect(s.committed(0)).toBe(3);
  });

  it('commits the partition again after a rebalance, though its offset is the one it sent before', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    await s.committer.mark(s.at(0, 3));
    s.committer.forget();
    await s.committer.mark(s.at(0, 3));
    expect(s.requests).toEqual([[s.at(0, 3)], [s.at(0, 3)]]);
  });
});
