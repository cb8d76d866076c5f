import fc from 'fast-check';
import { asyncPropertyRuns } from './fault-runs';
import { hidingControlRecords } from './control-record-port';
import { expectLastLogRanWithinWindows, heldRecreationsFields, runHeldRecreations } from './recreated-main-held-run';
import type { Kind } from './recreated-main-held-run';

/**
 * Attack 17's widening of attack16-recreated-main-held-property, for the held-partition anchor
 * (cbe5b4e: a partition paused the moment its publish is held, read again from its last record
 * taken and checked by identity, nothing of it committed until then). Added: one, two or the
 * default 256 publishes in flight per partition (a batch then waits inside eachBatch through a
 * hold), control records (a transactional producer's markers: offsets no batch hands out, so a
 * new log may have none at the anchor's offset), and a commit outage (no commit acknowledged, so
 * the anchor alone judges the log). The rest as attack 16's: once the run settles, every record
 * of the main topic's last log ran, and the records run again stay within a commit window (plus
 * one) per incident.
 *
 * It fails at its seed 17 after 3 cases: one held record with one publish in flight never
 * settles (attack17-in-flight-limit-held-keeps-batch-slot; the same wait commits the old log's
 * position onto a new one, attack17-in-flight-limit-held-commits-old-position). With that wait
 * patched locally (`&& !progress.holding`), seed 17 fails on a new log whose offset 0 is a control
 * record (attack17-new-log-hidden-start-read-past), and without control records seeds 17 to 22
 * (100 cases each) pass. Each finding has its own test; flip this to `it` once they are fixed.
 *
 * Passes since the wait for room in flight ends on a hold (e84b88c), a resume that finds the
 * group's commit moved back starts the partition over, and a withheld partition's refused commits
 * are not tried again (offset-committer withhold).
 */
const PARAMETERS = asyncPropertyRuns(100);
jest.setTimeout(Math.max(120_000, PARAMETERS.numRuns! * 300));

const scenarioOf = (kinds: readonly Kind[]) => fc.record(heldRecreationsFields(kinds));
const scenario = scenarioOf(['small', 'small', 'big']);
/** With control records: a new log may hide its offset 0 or the anchor's offset. */
const scenarioWithControls = scenarioOf(['small', 'small', 'big', 'control']);
type Scenario = typeof scenarioWithControls extends fc.Arbitrary<infer S> ? S : never;

const run = (s: Scenario, topicIds: 'fetch' | 'none' = 'none') => runHeldRecreations(s, { port: hidingControlRecords, topicIds });

describe('attack 17: unordered, the main topic created again while records are held, with publishes in flight at their limit, control records and a commit outage', () => {
  const holds = async (s: Scenario) => expectLastLogRanWithinWindows(await run(s));

  it('runs every record of the last log, and runs again no more than a commit window per incident', async () => {
    await fc.assert(fc.asyncProperty(scenario, holds), { ...PARAMETERS, seed: PARAMETERS.seed ?? 17, numRuns: Math.max(PARAMETERS.numRuns!, 100) });
  });

  // Open: a new log whose offset 0 holds a control record is read past its first records where
  // no hold judges it (attack17-new-log-hidden-start-read-past, second case). The anchor's offset
  // case is fixed (attack17-anchor-gap-in-new-log-reads-on: the log start tells). Pinned at seed
  // 1701, which fails within 300; its shrunk case: the held record the old log's first, the topic
  // created again and the group rebalanced while it waits, the new log's offset 0 a control
  // record: both logs start at 0, so nothing short of a topic id tells them apart.
  it.failing('with control records too, runs every record of the last log (kafkajs: no topic ids)', async () => {
    await fc.assert(fc.asyncProperty(scenarioWithControls, holds), { ...PARAMETERS, seed: 1701, numRuns: 300 });
  });

  // Where each payload names its topic's id (@platformatic/kafka), a batch of another id is a new
  // log however its offsets run (main-pipeline.ts readNewLogById): the same seed passes.
  it('with control records too, runs every record of the last log where the client names topic ids', async () => {
    const holdsWithIds = async (s: Scenario) => expectLastLogRanWithinWindows(await run(s, 'fetch'));
    await fc.assert(fc.asyncProperty(scenarioWithControls, holdsWithIds), { ...PARAMETERS, seed: 1701, numRuns: 300 });
  });
});
