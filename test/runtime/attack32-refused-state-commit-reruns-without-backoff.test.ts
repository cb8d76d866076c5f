import { faultWorld } from './fault-world';
import type { PlannedRecord } from './fault-world';

/*
 * Class: run again without bound (shared piece: the commit path a refusal takes back to the client).
 *
 * Scenario: park-by-key, 4 records on 2 partitions (no more produced). Record 3 (key A,
 * partition 1) succeeds on the main topic at once; from the 8th commit on, the group
 * coordinator refuses commits 100 times in a row (a coordinator moving or loading its offsets:
 * NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS for a few seconds), then accepts them again.
 *
 * Seen (both clients): record 3's handler runs 101 times, all at the same simulated instant
 * (T0 + 0 ms): each refused state commit drops the partition's state, the error goes to the
 * client as retriable, the client hands the record over again at once, the handler runs
 * again, its commit is refused again, and so on. The number of runs grows with the outage's
 * length and nothing paces it: a coordinator away for 10 s runs one successful record as
 * many times as the handler and a commit round trip allow (thousands, each with its side
 * effects). The unordered consumer under the same refusals runs it once (its committer keeps
 * the refused offsets and sends them again on its interval; the record is not run again).
 *
 * Code at fault: src/runtime/key-parking.ts (a refused commit of a record's state fails the
 * operation and is thrown to the client: the record is taken again, src/runtime/take-again.ts,
 * retrying-consumer.ts eachMessageOf) with no wait before the record is taken again and no
 * memory that its run already succeeded (ran-unjudged.ts does not cover a run whose own
 * commit was refused).
 *
 * Class of bug: a retry loop without backoff whose unit of retry is the user's handler
 * instead of the commit (the duplicate bound is per refusal, so one outage = unbounded runs).
 *
 * Paced since (key-parking.ts paced(): an operation of a partition whose last ones failed waits
 * 100 ms, doubled up to 5 s). And since commit-patience.ts, a refused commit of an operation's
 * state is sent again in place, waiting 100 ms doubled up to 5 s, for up to 30 s in all, when
 * the refusal says the coordinator or the connection was away (not a lost membership, a stopped
 * client, a refusal of one partition or one as too large): a blip costs a wait, not a run again.
 * Past that patience the record ran again, once per patience. Since ran-awaiting-commit.ts, a
 * record taken again under the state it ran under, in the same generation, does not run again:
 * its outcome stands and only its commit is made again.
 *
 * Suggested fix: on a refused state commit of a record that already ran, keep its outcome and
 * send the commit again (RESUME_RETRY_MS / REFUSED_RETRY_MS backoff) before the partition's
 * next record, as the unordered committer does; at the least pace the take-again (a backoff
 * before the record is handed over again) so the runs are bounded by time, not by how fast the
 * coordinator says no.
 */
jest.setTimeout(120_000);

const records: PlannedRecord[] = [
  { key: 'A', partition: 0, failures: 1 },
  { key: 'B', partition: 1, failures: 3 },
  { key: 'C', partition: 0, failures: 2 },
  { key: 'A', partition: 1, failures: 0 },
];

describe('park-by-key, commits refused for a while on an idle partition', () => {
  it('paces the runs again of a record whose commits are refused: after the first few, at most one every 5 s (both clients)', async () => {
    const seen: string[] = [];
    for (const reaction of ['kafkajs', 'confluent'] as const) {
      const w = faultWorld({ ordering: 'park-by-key', reaction, records, partitions: 2, faults: [{ operation: 'commit', at: 7, times: 100 }] });
      const result = await w.run();
      expect(result.lost).toEqual([]);
      const at = w.attempts.filter((a) => a.id === 3).map((a) => a.at);
      // The waits double from 100 ms: 100, 200, ... 3,200 ms, then 5 s each.
      const quick = at.slice(1).filter((t, i) => t - at[i]! < 5_000).length;
      if (quick > 7) seen.push(`${reaction}: record 3 ran ${at.length} times, ${quick} of them less than 5 s after the one before`);
    }
    // Seen: kafkajs: record 3 ran 101 times, all at T0 + 0 ms; confluent: the same.
    expect(seen).toEqual([]);
  });

  it('runs a succeeded record once while the coordinator refuses its commits for less than the commit patience (both clients)', async () => {
    for (const reaction of ['kafkajs', 'confluent'] as const) {
      const w = faultWorld({ ordering: 'park-by-key', reaction, records, partitions: 2, faults: [{ operation: 'commit', at: 7, times: 10 }] });
      const result = await w.run();
      expect(result.lost).toEqual([]);
      // Before commit-patience.ts: 11 runs, one per refused operation and the last.
      expect(w.attempts.filter((a) => a.id === 3)).toHaveLength(1);
    }
  });

  // Past the commit patience (commit-patience.ts: 30 s, a group session) the operation still
  // fails and the client takes the record again (waiting longer would hold the client's rejoin
  // up when the member lost its place without a refusal that says so); it no longer runs again.
  it('through refusals that outlast the commit patience, takes the record again after each patience without running it again (both clients)', async () => {
    for (const reaction of ['kafkajs', 'confluent'] as const) {
      const w = faultWorld({ ordering: 'park-by-key', reaction, records, partitions: 2, faults: [{ operation: 'commit', at: 7, times: 100 }] });
      const result = await w.run();
      // Every refusal was met: minutes of them, past many commit patiences; kafkajs rejoined
      // meanwhile (its retries ran out), and the record ran under the state it reads again.
      expect(result.injected).toBe(100);
      if (reaction === 'kafkajs') expect(result.restarts).toBeGreaterThan(0);
      expect(result.lost).toEqual([]);
      expect(w.attempts.filter((a) => a.id === 3)).toHaveLength(1);
    }
  });

  it('the unordered consumer under the same refusals runs it once (the contrast)', async () => {
    const w = faultWorld({ ordering: 'unordered', reaction: 'confluent', records, partitions: 2, faults: [{ operation: 'commit', at: 2, times: 100 }] });
    const result = await w.run();
    expect(result.lost).toEqual([]);
    expect(w.attempts.filter((a) => a.id === 3).length).toBe(1);
  });
});
