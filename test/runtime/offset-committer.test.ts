import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/** A consumer of the in-memory broker whose commit requests are counted; `refuse` makes the next ones fail. */
function setup(policy = { intervalMs: 100, maxRecords: 5 }) {
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
  const errors: unknown[] = [];
  const committer = createOffsetCommitter(() => counted, clock, policy, (e) => errors.push(e));
  const at = (partition: number, offset: number): OffsetCommit => ({ topic: 't', partition, offset: String(offset) });
  const committed = (partition: number) => broker.committedOffset('g', 't', partition);
  const settle = () => new Promise((r) => setImmediate(r));
  return { clock, requests, errors, committer, at, committed, settle, refuseNext: (n: number) => (refuse = n) };
}

describe('the offset committer', () => {
  it('sends the records done within one interval in one commit, the latest offset of each partition', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 1));
    await s.committer.mark(s.at(0, 2));
    await s.committer.mark(s.at(1, 7));
    expect(s.requests).toEqual([]);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.clock.now()).toBe(100);
    expect(s.requests).toEqual([[s.at(0, 2), s.at(1, 7)]]);
    expect([s.committed(0), s.committed(1)]).toEqual([2, 7]);
  });

  it('commits at once when maxRecords records wait, without waiting for the interval', async () => {
    const s = setup();
    for (let offset = 1; offset <= 5; offset++) await s.committer.mark(s.at(0, offset));
    expect(s.requests).toEqual([[s.at(0, 5)]]);
    expect(s.clock.now()).toBe(0);
  });

  it('commits each record on its own with an interval of 0', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    await s.committer.mark(s.at(0, 1));
    await s.committer.mark(s.at(0, 2));
    expect(s.requests).toEqual([[s.at(0, 1)], [s.at(0, 2)]]);
  });

  it('keeps the offsets of a refused commit for the next one, and reports the refusal', async () => {
    const s = setup();
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3));
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.errors).toHaveLength(1);
    expect(s.committed(0)).toBeUndefined();
    s.clock.advanceToNextTimer(); // the retry
    await s.settle();
    expect(s.committed(0)).toBe(3);
  });

  it('drops what it holds after a rebalance, so it never commits for a partition it may have lost', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 3));
    s.committer.forget();
    await s.committer.flush();
    expect(s.clock.hasTimers()).toBe(false);
    expect(s.requests).toEqual([]);
  });

  it('does not bring back a commit refused before a rebalance once the rebalance happened', async () => {
    const s = setup();
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3));
    const refused = s.committer.flush();
    s.committer.forget(); // the rebalance comes while the refused commit is in flight
    await expect(refused).rejects.toThrow('loading');
    await s.committer.flush();
    expect(s.clock.hasTimers()).toBe(false);
    expect(s.committed(0)).toBeUndefined();
  });

  it('never moves a committed offset backwards when an older commit is refused while a newer one is queued', async () => {
    const s = setup();
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3));
    const older = s.committer.flush(); // in flight, and about to be refused
    await s.committer.mark(s.at(0, 5));
    const newer = s.committer.flush(); // queued behind it
    await expect(older).rejects.toThrow('loading');
    await newer;
    while (s.clock.hasTimers()) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    expect(s.committed(0)).toBe(5);
    expect(s.requests.map((batch) => batch.map((o) => Number(o.offset)))).toEqual([[5]]);
  });

  it('leaves no timer after close(), even when the last commit was refused', async () => {
    const s = setup();
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3));
    await expect(s.committer.flush()).rejects.toThrow('loading');
    s.committer.close();
    expect(s.clock.hasTimers()).toBe(false);
  });

  it('flushes on demand, for stop()', async () => {
    const s = setup();
    await s.committer.mark(s.at(1, 9));
    await s.committer.flush();
    expect(s.committed(1)).toBe(9);
    expect(s.clock.hasTimers()).toBe(false);
  });
});
