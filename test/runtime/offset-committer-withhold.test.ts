import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import { PartitionProgress } from '../../src/runtime/partition-progress';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/** A committer over the in-memory broker whose next `refuse` commit requests are refused. */
function setup(policy = { intervalMs: 100, maxRecords: 3 }) {
  const clock = new VirtualClock(0);
  const broker = new MemoryBroker(clock);
  broker.createTopic('t', 2);
  broker.createTopic('u', 1);
  const consumer = broker.port().consumer('g');
  let refuse = 0;
  const refusing = {
    ...consumer,
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuse > 0) {
        refuse--;
        throw new Error('The coordinator is loading');
      }
      await consumer.commitOffsets(offsets);
    },
  };
  const committer = createOffsetCommitter(() => refusing, clock, policy, () => undefined);
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  const taken = (partition: number, count: number, topic = 't') => {
    const progress = new PartitionProgress(topic, partition);
    for (let offset = 0; offset < count; offset++) progress.finish(BigInt(offset));
    return progress;
  };
  return { clock, committer, settle, taken, committed: (p: number, topic = 't') => broker.committedOffset('g', topic, p), refuseNext: (n: number) => (refuse = n) };
}

describe('a partition withheld in the committer (paused for a held record, its log not judged yet)', () => {
  it('commits what was marked before it was withheld, and nothing marked after until it is allowed again', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 100 });
    const progress = s.taken(0, 2);
    void s.committer.markProgress(progress);
    s.committer.withhold('t', 0);
    progress.finish(2n);
    void s.committer.markProgress(progress);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.committed(0)).toBe(2);
    while (s.clock.hasTimers()) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    expect(s.committed(0)).toBe(2);
    s.committer.allow('t', 0);
    void s.committer.markProgress(progress);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.committed(0)).toBe(3);
  });

  it('commits the offset a refused commit carried once the partition is allowed again and it is marked again', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 100 });
    const progress = s.taken(0, 1);
    s.refuseNext(1);
    void s.committer.markProgress(progress);
    s.committer.withhold('t', 0); // withheld while the commit of offset 1 is on its way: refused, it is not kept for a retry
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.committed(0)).toBeUndefined();
    s.committer.allow('t', 0);
    void s.committer.markProgress(progress);
    while (s.clock.hasTimers()) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    // Found by mutation testing (offset-committer.ts, a refusal's clean-up of what was sent): offset 1 was
    // still taken for sent, so marking it again sent nothing and it was never committed.
    expect(s.committed(0)).toBe(1);
  });

  it('does not try a refused commit of it again, and the window still makes room with the other partitions\' commits', async () => {
    const s = setup();
    const held = s.taken(0, 1);
    s.refuseNext(2);
    void s.committer.markProgress(held);
    s.clock.advanceToNextTimer(); // refused: tried again after a while
    await s.settle();
    s.clock.advanceToNextTimer(); // refused again, after the partition was withheld: not tried again
    s.committer.withhold('t', 0);
    await s.settle();
    const other = s.taken(1, 3);
    const room = s.committer.markProgress(other); // the window is full
    let made = false;
    void room?.then(() => (made = true));
    await s.settle();
    for (let i = 0; i < 5 && !made && s.clock.hasTimers(); i++) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    expect({ made, committed: [s.committed(0), s.committed(1)] }).toEqual({ made: true, committed: [undefined, 3] });
  });

  it('commits what each partition marked before one was withheld at that partition\'s own offset: the others\' progress is not taken for the withheld one\'s', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 100 });
    const withheld = s.taken(0, 2);
    const sameTopic = s.taken(1, 5);
    const otherTopic = s.taken(0, 4, 'u');
    void s.committer.markProgress(withheld);
    void s.committer.markProgress(sameTopic);
    void s.committer.markProgress(otherTopic);
    s.committer.withhold('t', 0);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect([s.committed(0), s.committed(1), s.committed(0, 'u')]).toEqual([2, 5, 4]);
  });

  it('commits nothing of a partition a rebalance took away when it is withheld after its records were marked', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 100 });
    const progress = s.taken(0, 2);
    void s.committer.markProgress(progress);
    progress.revoke();
    s.committer.withhold('t', 0);
    while (s.clock.hasTimers()) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    expect(s.committed(0)).toBeUndefined();
  });

  it('commits nothing of a partition withheld before anything of it was marked, while the other partitions\' commits go out', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 100 });
    void s.committer.markProgress(s.taken(1, 3));
    s.committer.withhold('t', 0);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect([s.committed(0), s.committed(1)]).toEqual([undefined, 3]);
  });
});

