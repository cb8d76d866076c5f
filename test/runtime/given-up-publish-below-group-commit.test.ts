import { partitionBackPastGivenUpPublish } from './partition-back-past-given-up-publish';

/**
 * Found by attack (s26, attack4, target 1: a rebalance, and the partition back after another member committed
 * past this member's work). src/runtime/partition-progress.ts:281-282 resume(): a publish given up
 * at a revocation that lies before the batch sends the member back to it
 * (main-pipeline.ts:90-94 seeks there), whoever read the partition since. Scenario, in a group of
 * two: this member ran records 0-99 of main partition 0; record 40 failed and its tier publish
 * was still being retried (the tier refused writes for a moment) when a rebalance gave the
 * partition to member B. B read from the group's commit, 40, ran 40-99 (40 into its tier) and
 * committed 100. A later rebalance gives the partition back: this member reads from 100, finds
 * its given-up publish of 40, seeks back to 40 and runs 40-99 again, a second time: 60 records
 * replayed (and 40's tier copy published twice), and the group's commit may move back below 100
 * while they run (the committer's "highest sent" is forgotten at the rebalance). (B's work is played by the test: the in-memory broker gives a group's
 * partitions to every member.)
 * The seek back exists for a client that resumes the partition past the given-up record from its
 * own position (the Confluent client resumes at the last resolved offset); here the position came
 * from the group's commit, which another member moved past the record after finishing it.
 * Class: what was given up is judged by this member's memory alone, never by the group's commit.
 * Fix I would make: at the first batch after a rebalance, read the group's committed offset
 * (`committed()`); given-up publishes below it were finished by whoever committed it: drop them
 * (and finished offsets above it stay valid) instead of seeking back.
 */
describe('a given-up publish after the partition came back past it through another member\'s commit', () => {
  it('does not send the member back to run again the records another member finished and committed', async () => {
    const { ran, mainCommit } = await partitionBackPastGivenUpPublish();

    // Seen: r-41 .. r-99 ran a second time here (and fail-40 again, a second tier copy).
    expect(ran.filter((r) => r === 'r-41')).toHaveLength(1);
    expect(ran.slice(100)).toEqual(Array.from({ length: 10 }, (_, i) => `r-${i + 100}`));
    expect(mainCommit).toBe(110);
  });
});
