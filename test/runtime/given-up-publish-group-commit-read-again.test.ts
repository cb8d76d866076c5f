import type { MemberHooks } from './group-member';
import { partitionBackPastGivenUpPublish } from './partition-back-past-given-up-publish';

/**
 * Attack (s26, attack5) on the attack4 fix of given-up publishes (partition-progress.ts:113-116
 * resume(), main-pipeline.ts:76-82 groupViewOf). The scenario of
 * given-up-publish-below-group-commit.test.ts (this member ran 0-99, record 40's tier publish
 * given up at a rebalance; member B ran 40-99 and committed 100; the partition comes back here),
 * with one change: the read of the group's commit at the partition's first batch fails once (the
 * coordinator moved in the rebalance and is still loading its offsets).
 *
 * Found by attack (s26, attack5), fixed (the read is tried again within its timeout); was (partition-progress.ts:114 filters given-up publishes only `if (committed !== undefined)`;
 * group-commit.ts:11-13 turns any failed read into undefined, no retry): the fix is skipped and
 * the old defect is back: the member seeks back to 40 and runs 40-99 again (60 records B finished,
 * a second tier copy of 40), and the group's commit may move back below 100 while they run.
 * Class: the group's commit, now the proof every rebalance decision rests on, is read once and
 * its absence falls back to the behaviour the proof was added to prevent.
 * Fix: retry the read until it answers (backoff, heartbeating; bounded by stop()), so no
 * decision after a rebalance is taken without it.
 */
function readFailsOnce(): MemberHooks['committed'] {
  let failed = false;
  return async (topic, partitions, read) => {
    if (!failed) {
      failed = true;
      throw Object.assign(new Error('The coordinator is loading and hence can\'t process requests'), { type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true });
    }
    return read(topic, partitions);
  };
}

describe('a given-up publish after the partition came back past it through another member\'s commit, the group\'s commit read failing once (attack5)', () => {
  it('does not send the member back to run again the records another member finished and committed', async () => {
    const { ran, mainCommit } = await partitionBackPastGivenUpPublish({ committed: readFailsOnce() });

    // Seen: r-41 .. r-99 ran a second time here (and fail-40 again, a second tier copy).
    expect(ran.filter((r) => r === 'r-41')).toHaveLength(1);
    expect(ran.slice(100)).toEqual(Array.from({ length: 10 }, (_, i) => `r-${i + 100}`));
    expect(mainCommit).toBe(110);
  });
});
