import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import { PartitionProgress } from '../../src/runtime/partition-progress';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * A consumer of the in-memory broker whose commit requests are counted; `refuseNext` makes
 * the next ones fail, `holdNext` keeps the next one unanswered until its release is called.
 */
function setup(policy = { intervalMs: 100, maxRecords: 5 }) {
  const clock = new VirtualClock(0);
  const broker = new MemoryBroker(clock);
  broker.createTopic('t', 2);
  const consumer = broker.port().consumer('g');
  const requests: OffsetCommit[][] = [];
  let refuse = 0;
  let held: Promise<void> | undefined;
  const counted = {
    ...consumer,
    commitOffsets: async (offsets: OffsetCommit[]) => {
      const gate = held;
      held = undefined;
      await gate;
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
  const holdNext = () => {
    let release!: () => void;
    held = new Promise((r) => (release = r));
    return release;
  };
  return { clock, requests, errors, committer, at, committed, settle, refuseNext: (n: number) => (refuse = n), holdNext };
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

  it('keeps the latest offset of a partition when an older one is marked after it', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 5));
    await s.committer.mark(s.at(0, 3));
    await s.committer.flush();
    expect(s.committed(0)).toBe(5);
  });

  it('never moves a partition’s commit backwards when an older offset is marked after a newer one went out', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 5));
    await s.committer.flush();
    await s.committer.mark(s.at(0, 3));
    await s.committer.flush();
    expect(s.committed(0)).toBe(5);
    expect(s.requests).toEqual([[s.at(0, 5)]]);
  });

  it('never moves a partition’s commit backwards when an older offset is marked while a newer one is in flight, unanswered', async () => {
    const s = setup();
    const release = s.holdNext();
    await s.committer.mark(s.at(0, 5));
    const inFlight = s.committer.flush();
    await s.committer.mark(s.at(0, 3));
    release();
    await inFlight;
    await s.committer.flush();
    expect(s.requests).toEqual([[s.at(0, 5)]]);
    expect(s.committed(0)).toBe(5);
  });

  it('never moves an acknowledged commit backwards after a rebalance: only a log that started over takes a commit below it', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 5));
    await s.committer.flush();
    s.committer.forget();
    await s.committer.mark(s.at(0, 3)); // a record below it, read again after the rebalance
    await s.committer.flush();
    expect(s.requests).toEqual([[s.at(0, 5)]]);
    expect(s.committed(0)).toBe(5);
  });

  it('commits at once when maxRecords records wait, without waiting for the interval', async () => {
    const s = setup();
    for (let offset = 1; offset <= 5; offset++) await s.committer.mark(s.at(0, offset));
    expect(s.requests).toEqual([[s.at(0, 5)]]);
    expect(s.clock.now()).toBe(0);
  });

  it('with a window of 1,000 records or more, commits once half of it is used, before the interval ends, so room comes back before it fills', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 1_000 });
    const release = s.holdNext();
    for (let offset = 1; offset <= 499; offset++) await s.committer.mark(s.at(0, offset));
    expect(s.requests).toEqual([]);
    await s.committer.mark(s.at(0, 500)); // half the window: the commit goes out, unanswered for now
    // One commit in flight at a time: the records marked meanwhile wait for the next.
    for (let offset = 501; offset <= 999; offset++) await s.committer.mark(s.at(0, offset));
    release();
    await s.settle();
    expect(s.requests).toEqual([[s.at(0, 500)]]);
    // Half a window past the commit answered, the next goes out.
    await s.committer.mark(s.at(0, 1_000));
    await s.settle();
    expect(s.requests).toEqual([[s.at(0, 500)], [s.at(0, 1_000)]]);
    expect(s.clock.now()).toBe(0);
    expect(s.committed(0)).toBe(1_000);
  });

  it('counts the records a partition\u2019s progress finished (the main pipeline\u2019s way) toward the half that sends a commit early', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 1_000 });
    const progress = new PartitionProgress('t', 0);
    for (let offset = 0; offset < 499; offset++) progress.finish(BigInt(offset));
    await s.committer.markProgress(progress);
    await s.settle();
    expect(s.requests).toEqual([]);
    progress.finish(499n);
    await s.committer.markProgress(progress); // 500 done of a window of 1,000
    await s.settle();
    expect(s.requests).toEqual([[s.at(0, 500)]]);
    expect(s.clock.now()).toBe(0);
  });

  it.each([
    ['close()', (c: ReturnType<typeof setup>['committer']) => c.close()],
    ['release()', (c: ReturnType<typeof setup>['committer']) => c.release()],
    ['a rebalance (forget())', (c: ReturnType<typeof setup>['committer']) => c.forget()],
  ])('ends a wait for room at %s while the commit in flight is never answered (a broker away)', async (_name, end) => {
    const s = setup({ intervalMs: 100, maxRecords: 5 });
    s.holdNext(); // never released
    for (let offset = 1; offset <= 4; offset++) await s.committer.mark(s.at(0, offset));
    let waited = false;
    const full = s.committer.mark(s.at(0, 5)).then(() => (waited = true));
    await s.settle();
    expect(waited).toBe(false);
    end(s.committer);
    await s.settle();
    await s.settle();
    expect(waited).toBe(true);
    await full;
  });

  it('with a smaller window, commits when it is full or at the interval, never at its half (that would only double the commits)', async () => {
    const s = setup({ intervalMs: 100, maxRecords: 999 });
    for (let offset = 1; offset <= 998; offset++) await s.committer.mark(s.at(0, offset));
    await s.settle();
    expect(s.requests).toEqual([]);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.requests).toEqual([[s.at(0, 998)]]);
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

  it('waits twice as long after each refusal in a row, up to 1 s, and from the interval again once a commit lands', async () => {
    const s = setup();
    s.refuseNext(8);
    await s.committer.mark(s.at(0, 3));
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = s.clock.now();
      s.clock.advanceToNextTimer();
      waits.push(s.clock.now() - before);
      await s.settle();
    }
    // The first commit after its interval; then the retries of eight refusals in a row.
    expect(waits).toEqual([100, 100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000]);
    expect(s.errors).toHaveLength(8);
    expect(s.committed(0)).toBe(3);
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 4));
    s.clock.advanceToNextTimer();
    await s.settle();
    const before = s.clock.now();
    s.clock.advanceToNextTimer();
    expect(s.clock.now() - before).toBe(100);
  });

  it('drops what it holds after a rebalance, so it never commits for a partition it may have lost', async () => {
    const s = setup();
    await s.committer.mark(s.at(0, 3));
    s.committer.forget();
    expect(s.clock.hasTimers()).toBe(false); // no commit left to wake up for
    await s.committer.flush();
    expect(s.requests).toEqual([]);
  });

  it('commits a partition again from where it is read after a rebalance that refused its commit, below the offset it sent before', async () => {
    const s = setup();
    s.refuseNext(1); // the rebalance fences the commit of 10
    await s.committer.mark(s.at(0, 10));
    await expect(s.committer.flush()).rejects.toThrow('loading');
    s.committer.forget();
    await s.committer.mark(s.at(0, 4)); // read again from an older commit
    await s.committer.flush();
    expect(s.committed(0)).toBe(4);
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
    expect(s.clock.hasTimers()).toBe(false); // the refused offset was overtaken: nothing to try again
    while (s.clock.hasTimers()) {
      s.clock.advanceToNextTimer();
      await s.settle();
    }
    expect(s.committed(0)).toBe(5);
    expect(s.requests.map((batch) => batch.map((o) => Number(o.offset)))).toEqual([[5]]);
  });

  it('does not let a refused commit replace an offset of its partition marked while it was in flight', async () => {
    const s = setup();
    s.refuseNext(1);
    await s.committer.mark(s.at(0, 3));
    const older = s.committer.flush();
    await s.committer.mark(s.at(0, 5)); // waits for the interval
    await expect(older).rejects.toThrow('loading');
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.committed(0)).toBe(5);
  });

  it('stops the window of records done and not committed at maxRecords while a commit is in flight: the mark that reaches it waits for the commit', async () => {
    const s = setup();
    const release = s.holdNext();
    for (let offset = 1; offset <= 3; offset++) await s.committer.mark(s.at(0, offset));
    const first = s.committer.flush(); // three records in flight, unanswered
    await s.committer.mark(s.at(0, 4));
    let waiting = true;
    const fifth = s.committer.mark(s.at(0, 5)).then(() => (waiting = false));
    await s.settle();
    expect(waiting).toBe(true);
    release();
    await first;
    await fifth;
    expect(s.requests.map((batch) => batch.map((o) => Number(o.offset)))).toEqual([[3], [5]]);
    // Both answered: the window is empty again, and the next record waits for the interval.
    await s.committer.mark(s.at(0, 6));
    expect(s.requests).toHaveLength(2);
    expect(s.clock.now()).toBe(0);
  });

  it('keeps the records of a refused commit in the window: at maxRecords the next record waits for the retry, and no commit goes out per record', async () => {
    const s = setup();
    s.refuseNext(1);
    for (let offset = 1; offset <= 3; offset++) await s.committer.mark(s.at(0, offset));
    await expect(s.committer.flush()).rejects.toThrow('loading');
    await s.committer.mark(s.at(0, 4));
    let fifthDone = false;
    const fifth = s.committer.mark(s.at(0, 5)).then(() => (fifthDone = true));
    await s.settle();
    // Five records done and none committed: the fifth waits, so a crash now runs again at most five.
    expect(fifthDone).toBe(false);
    expect(s.requests).toEqual([]);
    s.clock.advanceToNextTimer();
    await fifth;
    expect(s.requests).toEqual([[s.at(0, 5)]]);
  });

  it('keeps a record waiting for room while commits are refused, and lets it go on at a rebalance', async () => {
    const s = setup();
    s.refuseNext(3);
    for (let offset = 1; offset <= 4; offset++) await s.committer.mark(s.at(0, offset));
    await expect(s.committer.flush()).rejects.toThrow('loading');
    let done = false;
    const fifth = s.committer.mark(s.at(0, 5)).then(() => (done = true));
    s.clock.advanceToNextTimer(); // refused again
    await s.settle();
    expect(done).toBe(false);
    s.committer.forget();
    await fifth;
    expect(done).toBe(true);
  });

  it('after a rebalance counts only the new marks toward maxRecords, even when a commit from before it is answered later', async () => {
    for (const answer of ['accepted', 'refused'] as const) {
      const s = setup();
      const release = s.holdNext();
      if (answer === 'refused') s.refuseNext(1);
      for (let offset = 1; offset <= 3; offset++) await s.committer.mark(s.at(0, offset));
      const before = s.committer.flush().catch(() => {});
      s.committer.forget();
      release();
      await before;
      for (let offset = 1; offset <= 5; offset++) await s.committer.mark(s.at(1, offset));
      expect(s.committed(1)).toBe(5); // the fifth mark committed at once
      expect(s.clock.now()).toBe(0);
    }
  });

  it('sets no timer for a record marked after close(), which would keep the process alive', async () => {
    const s = setup();
    await s.committer.flush();
    s.committer.close();
    await s.committer.mark(s.at(0, 3));
    expect(s.clock.hasTimers()).toBe(false);
  });

  it('does not try again a commit refused after close(), not even with a later commit', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    s.refuseNext(1);
    const refused = s.committer.mark(s.at(0, 3));
    s.committer.close();
    // Reported, not thrown: with an interval of 0 too, a refused commit's offsets would go out again.
    await refused;
    expect(s.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('loading') })]);
    await s.committer.mark(s.at(1, 7));
    expect(s.requests).toEqual([[s.at(1, 7)]]);
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

describe('the offset committer with pipelined partitions', () => {
  /** A partition whose records from `from` to `to` were handled: committable up to `to + 1`. */
  function handled(from: number, to: number): PartitionProgress {
    const progress = new PartitionProgress('t', 0);
    for (let offset = from; offset <= to; offset++) progress.finish(BigInt(offset));
    return progress;
  }

  it('reads the partition’s committable offset when the interval ends', async () => {
    const s = setup();
    const progress = new PartitionProgress('t', 0);
    progress.finish(4n);
    expect(s.committer.markProgress(progress)).toBeUndefined();
    progress.finish(5n);
    s.clock.advanceToNextTimer();
    await s.settle();
    expect(s.committed(0)).toBe(6);
  });

  it('commits at once, and makes the partition wait for it, when maxRecords records wait', async () => {
    const s = setup();
    const progress = new PartitionProgress('t', 0);
    for (let offset = 1; offset < 5; offset++) {
      progress.finish(BigInt(offset));
      expect(s.committer.markProgress(progress)).toBeUndefined();
    }
    progress.finish(5n);
    await s.committer.markProgress(progress);
    expect(s.committed(0)).toBe(6);
    expect(s.clock.now()).toBe(0);
  });

  it('returns the commit to wait for with an interval of 0', async () => {
    const s = setup({ intervalMs: 0, maxRecords: 500 });
    await s.committer.markProgress(handled(1, 2));
    expect(s.committed(0)).toBe(3);
    expect(s.clock.hasTimers()).toBe(false);
  });

  it('commits nothing for a partition a rebalance took away while its records waited for the commit', async () => {
    const s = setup();
    const progress = handled(1, 2);
    s.committer.markProgress(progress);
    progress.revoke();
    await s.committer.flush();
    expect(s.requests).toEqual([]);
  });

  it('commits nothing for a partition where nothing was finished since it was taken', async () => {
    const s = setup();
    s.committer.markProgress(new PartitionProgress('t', 0));
    await s.committer.flush();
    expect(s.requests).toEqual([]);
  });
});
