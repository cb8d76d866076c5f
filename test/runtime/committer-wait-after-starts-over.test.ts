import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Review 49 (adjacent to change 1, the wait for room; the defect predates it). Fixed: startsOver() wakes the waiters, and so does a retry timer that finds nothing to send.
 *
 * Scenario: the retry consumer's committer (retrying-consumer.ts uses mark() and startsOver()
 * on the same committer). A commit filling the window is refused (coordinator loading): its
 * offset is kept in `pending`, the retry timer is set, and the caller waiting for room waits in
 * untilRoom's `refused() && cancelTimer !== undefined` branch for a wake. Before the retry fires,
 * a record of that partition is read below its acknowledged offset (the tier created again),
 * and startsOver() deletes the partition's pending offset. The retry timer then sends nothing
 * (sendPending() answers undefined, commitPending() returns `last`): no commit settles, so no
 * wake() ever comes, and no timer is left.
 *
 * Seen: the wait never ends (until a rebalance or stop()); every later mark() finds the window
 * still full (the refused marks stay in `marked`) and is handed the same pending roomWait, so the
 * partition's consumer hangs. Expected: "It ends too when nothing is left to send or to hear
 * back" (untilRoom's doc): woken, the loop would return at once (nothing pending, nothing in flight).
 *
 * Code at fault: offset-committer.ts schedule()'s timer callback
 * (`commitPending().catch(onError)` when sendPending() has nothing: no wake) together with
 * startsOver() (deletes from `pending` without waking the waiters).
 * Class: liveness (a wait that never ends; the consumer stalls).
 * Suggested fix: wake() in startsOver() (and/or when the retry timer finds nothing to send).
 */
describe('review 49: the committer\u2019s wait for room after a refusal', () => {
  it('ends when startsOver() took away the only offsets the retry would have sent', async () => {
    const clock = new VirtualClock(0);
    const broker = new MemoryBroker(clock);
    broker.createTopic('t', 1);
    const consumer = broker.port().consumer('g');
    let refuse = true;
    const port = {
      ...consumer,
      commitOffsets: async (offsets: OffsetCommit[]) => {
        if (refuse) throw new Error('The coordinator is loading');
        await consumer.commitOffsets(offsets);
      },
    };
    const committer = createOffsetCommitter(() => port, clock, { intervalMs: 100, maxRecords: 2 }, () => undefined);
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    let waitEnded = false;
    void committer.mark({ topic: 't', partition: 0, offset: '1' });
    // The second record fills the window: its commit goes out at once, and is refused.
    void committer.mark({ topic: 't', partition: 0, offset: '2' }).then(() => (waitEnded = true));
    await settle();
    expect(waitEnded).toBe(false); // waiting for the refused commit's retry
    refuse = false;
    // The tier partition's log started over: what the committer knew of the old log is forgotten.
    committer.startsOver('t', 0);
    // The retry fires and finds nothing to send.
    clock.advanceToNextTimer();
    await settle();
    expect(clock.hasTimers()).toBe(false);
    // Nothing is left to send or to hear back: the wait must have ended.
    expect(waitEnded).toBe(true);
  });
});
