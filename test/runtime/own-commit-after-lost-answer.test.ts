import { judgeLog } from '../../src/runtime/group-commit';
import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/** A consumer whose commits the broker stores; `loseAnswers` makes it store them and answer with an error (an outage cut the answer). */
function storingConsumer() {
  const stored = new Map<number, string>();
  let loseAnswers = false;
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      for (const o of offsets) stored.set(o.partition, o.offset);
      if (loseAnswers) throw Object.assign(new Error('Connection error: read ECONNRESET'), { retriable: true });
    },
  } as unknown as ConsumerPort;
  return { consumer, stored, loseAnswers: (lose: boolean) => (loseAnswers = lose) };
}

const at = (offset: number): OffsetCommit => ({ topic: 'orders', partition: 0, offset: String(offset) });

describe('the committer\'s own commits, as a rebalance judges the group\'s commit', () => {
  it('knows a commit the broker stored while its answer was lost as its own, across a rebalance, until a later one is acknowledged', async () => {
    const c = storingConsumer();
    const committer = createOffsetCommitter(() => c.consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {});
    await committer.mark(at(10));
    c.loseAnswers(true);
    await committer.mark(at(20));
    committer.forget();
    expect(c.stored.get(0)).toBe('20');
    expect(committer.acknowledgedOffset('orders', 0)).toBe(10n);
    expect([10n, 15n, 20n].map((offset) => committer.isOwnCommit('orders', 0, offset))).toEqual([true, false, true]);
    c.loseAnswers(false);
    await committer.mark(at(30));
    expect([20n, 30n].map((offset) => committer.isOwnCommit('orders', 0, offset))).toEqual([false, true]);
  });

  it('knows a commit sent while an older one was in flight as its own when the older one is acknowledged and its own answer is lost', async () => {
    const stored = new Map<number, string>();
    let answerFirst!: () => void;
    let calls = 0;
    const consumer = {
      commitOffsets: async (offsets: OffsetCommit[]) => {
        for (const o of offsets) stored.set(o.partition, o.offset);
        // The first commit's answer comes when the test says; the second's is lost to an outage.
        if (++calls === 1) return new Promise<void>((resolve) => (answerFirst = resolve));
        throw Object.assign(new Error('Connection error: read ECONNRESET'), { retriable: true });
      },
    } as unknown as ConsumerPort;
    const committer = createOffsetCommitter(() => consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {});
    const first = committer.mark(at(10));
    const second = committer.mark(at(20));
    await new Promise((r) => setImmediate(r));
    answerFirst();
    await Promise.all([first, second]);
    committer.forget();
    expect(stored.get(0)).toBe('20');
    expect(committer.acknowledgedOffset('orders', 0)).toBe(10n);
    // Found by mutation testing (offset-committer.ts, the acknowledgement's clean-up of offsets sent since): 20 was forgotten with 10.
    expect([10n, 20n].map((offset) => committer.isOwnCommit('orders', 0, offset))).toEqual([true, true]);
  });

  it.each([
    ['the group\'s commit below this member\'s acknowledged one: a new log', 5n, 10n, false, false, 'new-log'],
    ['the group\'s commit is this member\'s own: read past what it finished', 20n, 10n, true, false, 'read-past'],
    ['the group\'s commit unread: read past only what lies below this member\'s acknowledged commit', undefined, 10n, false, false, 'read-past-acknowledged'],
    ['another member\'s commit past this member\'s own (maybe in a new log): run again', 15n, 10n, false, false, 'run-again'],
    ['no commit of this member acknowledged, the partition starts where it started: read past', -1n, undefined, false, true, 'read-past'],
    ['no commit of this member acknowledged, another start: run again', -1n, undefined, false, false, 'run-again'],
  ] as const)('%s', (_case, committed, acknowledged, own, startsWhereItStarted, judged) => {
    expect(judgeLog(committed, acknowledged, own, startsWhereItStarted)).toBe(judged);
  });
});
