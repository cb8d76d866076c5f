import { HEADERS } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack 13 (a LOST record), by a widened fault world (attack13-fault-world.ts) whose
 * replays name a main offset of their partition, as `krt dlq replay` writes them, instead of
 * offsets past every log: it failed at its first case, with no fault at all. Not caused by
 * today's changes (the `current` test is older).
 *
 * Scenario: the main topic was deleted and created again (or its offsets reset); the DLQ still
 * holds an old log's record of key k with x-original-offset 0. On the new log, k's record
 * k:a (offset 0) fails twice: k is held at 0, its copy in the 10m tier. The operator replays
 * the old DLQ record into the 1m tier (the replay route strips x-park-state, so nothing names
 * the log it came from).
 *
 * Seen: the replay is taken for k's current retry (its original offset equals the hold), runs,
 * succeeds and releases k; k:a's own 10m copy then finds no hold and is skipped as a stale copy
 * (`stale-tier-record`): k:a never succeeds and never reaches the DLQ.
 *
 * Code at fault: src/runtime/key-parking.ts onTierRecord: `current = !foreign && holder !==
 * undefined && original === holder` is decided before, and regardless of, the replay mark: a
 * record the docs call "no copy" can still release a hold that is not its own, and the hold
 * keeps only an offset, which two logs (or a replay and a record) can share.
 *
 * Class: identity by offset alone, across logs.
 *
 * Fixed: a replay is never its key's current retry (key-parking.ts onTierRecord): it runs
 * unjudged in its turn behind the hold. Its own re-read (a refused commit after it took the
 * hold) is not told apart: it runs once more in its turn, a duplicate at-least-once allows
 * (attack13-replay-stale-copy-runs-over-newer).
 */
jest.setTimeout(60_000);

describe('park-by-key, a replay of an old log\'s DLQ record naming the offset of a record now in retry', () => {
  it('does not release that record\'s hold: the record\'s own retry still runs', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    w.failOnce.add('k:a'); // its 1m copy fails too: k's retry goes on in the 10m tier
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from('old'),
      partition: 0,
      headers: {
        [HEADERS.attempt]: '1',
        [HEADERS.dueAt]: String(w.clock.now()),
        [HEADERS.originalTopic]: consumer.mainTopic,
        [HEADERS.originalPartition]: '0',
        [HEADERS.originalOffset]: '0',
        [HEADERS.replayedFromDlq]: 'billing.dlq/0:41',
      },
    });
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    // Seen: ['k:a FAIL', 'k:a FAIL', 'k:old'], and a stale-tier-record for k:a's 10m copy.
    expect(w.handled).toContain('k:a');
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
  });
});
