import type { RetryEvent } from '../../src/runtime/events';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * Found by attack 12 (a LOST record), by the widened property in
 * attack12-widened-replays-property.test.ts (seed 1, 200 runs; shrunk to this case). Not caused
 * by the kept tier position: the same case loses the record at 06ba9ba, before it.
 *
 * Scenario: one DLQ record of key B is replayed into the 1m tier of main partition 0 and fails
 * on (1m, 10m, 1h, then the DLQ). The broker's offset.metadata.max.bytes is lowered to 24 bytes
 * at the first step (a broker keeping less than the empty state with its id: attack 11's
 * domain); the refused commit on partition 1 lowers the shared budget to 30, under one hold
 * with the id, so fitId drops partition 0's state id.
 *
 * Seen: the replay runs in the 1m tier and fails; its copy is written to the 10m tier with an id
 * of no state (copyStateId: its original offset is past the state's position); there the copy
 * is judged a stale copy (`stale-tier-record`) and committed without running: the record
 * reaches neither a success nor the DLQ (`lost: [1]`).
 *
 * Code at fault: src/runtime/park-state.ts writtenUnderAnotherState returns false for a state
 * with no id (`state.id !== undefined && ...`), so key-parking.ts onTierRecord treats the copy as
 * its own state's, finds no hold for B and, the copy not being a replay any more, not unjudged:
 * stale. The id copyStateId gave the copy to keep it unjudged is ignored by a state without one.
 *
 * Class: a judgement that needs the state's id, made by a state that gave its id up (budget).
 *
 * Fixed: the copy of a record no hold of this state may judge carries NO_STATE_ID (park-state.ts),
 * which every state reads as another state's, with or without an id of its own, so every later
 * hop runs it unjudged. (Carrying x-replayed-from-dlq on every copy instead, tried first, made a
 * replay's stale copies run over newer records: attack13-replay-stale-copy-runs-over-newer.)
 */
jest.setTimeout(60_000);

describe('park-by-key, a replay that fails on while the broker keeps less than the state id', () => {
  it('runs the replay\'s later copies instead of skipping them as stale', async () => {
    const base: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      records: [{ key: 'A', partition: 1, failures: 0 }],
      replays: [{ key: 'B', partition: 0, failures: 3 }],
      parkingBudgetBytes: 160,
      partitions: 2,
    };
    const events: RetryEvent[] = [];
    const result = await faultWorld({ ...base, onEvent: (e) => events.push(e), events: [{ kind: 'metadata-limit-lowered', at: 0 }], loweredMetadataLimitBytes: 24 }).run();
    expect(events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(result.lost).toEqual([]); // seen: [1], the replay
  });
});
