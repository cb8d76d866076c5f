import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Attack (s26, attack5) on the commit window of records marked by offset (the tier path:
 * retrying-consumer.ts:239-245 `retryCommits.mark(commit)`), offset-committer.ts:179-199.
 *
 * Scenario: a broker outage on the Confluent client. Each commit now waits for its confirming
 * read, which the coordinator does not answer for COMMIT_CONFIRM_TIMEOUT_MS (10 s), and is then
 * refused; the interval (100 ms) is far shorter, so a second commit of the same partition is
 * queued behind the first before the first is refused.
 */
const MAX_RECORDS = 5;

describe('the commit window while commits are slow and refused (attack5)', () => {
  // Found by attack (s26, attack5), fixed; was (offset-committer.ts:180 and :186-198): a refused commit gives its marks back to the
  // window (`marked += sentMarks`) only when it is still the partition's highest offset sent;
  // a refused commit overtaken by a newer one of its partition drops its marks, "covered" by the
  // newer commit. But the newer one is refused as well (the outage), and gives back only its
  // own. Here commit A (records 1-3) is overtaken by B (record 4), both refused: the window
  // counts 1 record where 4 are done and uncommitted, and lets 3 more records past the bound;
  // each overlap of two refused commits loses the older one's marks again, so through an outage
  // the tier records run again after a crash without bound.
  // Class: the window's count of a refused commit handed to a newer commit that may never be
  // acknowledged. Fix: count the window per partition as records done since the last
  // acknowledged commit (as markProgress does with PartitionProgress.uncommitted), not as marks
  // moved between `marked` and `inFlightMarks`; or, when a refused commit is overtaken, give its
  // marks to the newer commit's count so they come back if it is refused too.
  it('lets at most maxRecords records be marked while none is committed', async () => {
    const requests: { offsets: OffsetCommit[]; refuse: () => void }[] = [];
    const consumer = {
      commitOffsets: (offsets: OffsetCommit[]) =>
        new Promise<void>((_resolve, reject) => requests.push({ offsets, refuse: () => reject(new Error('the group coordinator does not show the commit; it goes out again')) })),
    } as unknown as ConsumerPort;
    const clock = new VirtualClock(0);
    const commits = createOffsetCommitter(() => consumer, clock, { intervalMs: 100, maxRecords: MAX_RECORDS }, () => {});
    const settled = async () => {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    };
    let passed = 0;
    const mark = (offset: number) => {
      void commits.mark({ topic: 't.retry.1m', partition: 0, offset: String(offset) }).then(() => passed++);
    };

    for (const offset of [1, 2, 3]) mark(offset);
    await settled();
    clock.advanceToNextTimer(); // commit A: offset 3, three records
    mark(4);
    await settled();
    clock.advanceToNextTimer(); // commit B: offset 4, queued behind A
    await settled();
    expect(requests.map((r) => r.offsets.map((o) => o.offset))).toEqual([['3']]); // B waits for A's answer
    requests[0]!.refuse(); // A refused (overtaken by B: its marks are dropped)
    await settled();
    expect(requests.map((r) => r.offsets.map((o) => o.offset))).toEqual([['3'], ['4']]);
    requests[1]!.refuse(); // B refused: its one mark comes back
    await settled();
    for (const offset of [5, 6, 7, 8]) mark(offset);
    await settled();

    // Nothing was ever committed: every record marked runs again after a crash.
    expect(passed).toBeLessThanOrEqual(MAX_RECORDS);
  });
});
