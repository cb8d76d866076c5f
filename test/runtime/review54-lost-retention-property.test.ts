import fc from 'fast-check';
import type { StepEvent } from '../../src/simulate/faulty-port';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import { asyncPropertyRuns } from './fault-runs';
import { budget, expectEveryRecordsFate, keys, nonRetriable, PARTITIONS, position, records } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Review 54 (on e878be9): retention and states lost at arbitrary steps (the same step, a few
 * steps apart, or anywhere; each up to twice), with replays (any naming, due at once or later),
 * refused reads of the group's offsets and of the log start ('committed' faults), crashes,
 * rebalances, eachMessage side by side, both client reactions. Order is excused only where a
 * loss or retention excuses it (lostKeys). Held at HEAD (e878be9 + the session's later commits):
 * seeds 1-5 at 200 cases, seeds 6-12 at 300 (3,100 cases). At e878be9^ (its key-parking.ts) it
 * fails at seed 1 (200 runs) on review 52's bug: a copy of a record retention deleted past the
 * lost commit skipped as stale (lost: [2]). The one refused log-start read that still loses a
 * record (review54-refused-log-start-read-at-lost-load.test.ts) was not met by these cases:
 * the fault must land on that one read at that one load.
 */
const PARAMETERS = asyncPropertyRuns(20);
jest.setTimeout(Math.max(600_000, PARAMETERS.numRuns! * 3_000));

const replays = fc.array(
  fc.record({ key: keys, failures: fc.constantFrom(0, 1, 1, 2, 3) }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { maxLength: 6 },
);
const operation = fc.oneof({ weight: 3, arbitrary: fc.constant('commit' as const) }, { weight: 2, arbitrary: fc.constant('committed' as const) }, { weight: 1, arbitrary: fc.constantFrom(...PORT_OPERATIONS) });
const fault = fc.record({ operation, at: position, times: fc.integer({ min: 1, max: 12 }), nonRetriable });
const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  records,
  replays,
  replayNames: fc.constantFrom('past-log' as const, 'other-key' as const, 'any' as const, 'own-key' as const),
  replayDueAfterMs: fc.constantFrom(0, 1_000, 60_000),
  retentions: fc.array(position, { minLength: 1, maxLength: 2 }),
  losses: fc.array(position, { minLength: 1, maxLength: 2 }),
  together: fc.boolean(),
  lossAfter: fc.integer({ min: 0, max: 6 }),
  events: fc.array(fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: position }), { maxLength: 2 }),
  faults: fc.array(fault, { maxLength: 3 }),
  parkingBudgetBytes: budget,
  sideBySide: fc.boolean(),
});

describe('review 54: retention and lost states at any step', () => {
  it('lose no record, stall no key, keep order but where a loss excuses it', async () => {
    let lostPastCommit = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records, replays: s.replays, replayNames: s.replayNames, replayDueAfterMs: s.replayDueAfterMs, partitions: PARTITIONS, parkingBudgetBytes: s.parkingBudgetBytes, sideBySide: s.sideBySide };
        const dry = await faultWorld(base).run();
        const at = (x: number) => Math.floor(x * dry.steps);
        const retentions = s.retentions.map((x): StepEvent => ({ kind: 'retention', at: at(x) }));
        const losses = s.together ? retentions.map((r): StepEvent => ({ kind: 'state-lost', at: r.at + s.lossAfter })) : s.losses.map((x): StepEvent => ({ kind: 'state-lost', at: at(x) }));
        const events = s.events.map((e): StepEvent => ({ ...e, at: at(e.at) }));
        const faults = s.faults.map((f) => ({ ...f, at: Math.floor(f.at * (dry.calls.get(f.operation) ?? 0)) }));
        let hit = false;
        const options: FaultWorldOptions = {
          ...base,
          faults,
          events: [...events, ...retentions, ...losses],
          onEvent: (e) => void (hit ||= e.type === 'park-state-lost' && e.offset !== undefined),
        };
        const result = await faultWorld(options).run();
        if (hit) lostPastCommit++;
        expectEveryRecordsFate(options, result, 'kept-but-where-lost');
      }),
      PARAMETERS,
    );
    console.log(`review54: ${lostPastCommit} cases with a park-state-lost`);
  });
});
