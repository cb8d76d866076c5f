import { HEADERS, PARK_STATE_HEADER } from '../../src/naming/headers';
import { NO_STATE_ID } from '../../src/runtime/park-state';
import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { heldReplaysWorld } from './held-replays-world';
import { consumer, T0, tier1m } from './park-by-key-world';

/**
 * Found by attack 12 (duplicates past the bound; no record lost).
 *
 * Scenario: k:a fails for good, so k is held for its ladder. An operator replays 601 DLQ records
 * into the 1m tier: k's first (its key busy: it waits its turn at the tier commit), then 1,200 of
 * free keys, which run. k's ladder ends: its release runs k's replay (a turn) and commits the
 * main state; the tier commits that follow are refused once (the coordinator moving), so the
 * 1m tier stays committed at k's replay, with the kept position saying the 1,200 are done. A
 * rebalance (a deploy) reads the 1m tier again: the record at the commit is k's replay, its
 * timestamp the kept one, so the 1,200 are to be skipped. k is free now (the main state says so),
 * so the replay runs in its own eachMessage, fails again, and its copy is too large for the 10m
 * tier and the DLQ: it is held (docs/runtime.md, "A copy too large"), its partition sought
 * back to it. Read there again, it is "at or below one read before": doneBeforeLoad drops the
 * kept position, and the 1,200 done behind it all run again once the DLQ takes the copy.
 *
 * Seen: 2,400 runs of the 1,200 replays (every one run twice) after one refused commit, one
 * rebalance and one held record: past the duplicate bound for two incidents (2 x (maxRecords 500
 * plus the records in hand) = 1,020), which the kept position was made to keep (attack 9).
 *
 * Code at fault: src/runtime/key-parking.ts doneBeforeLoad: `before !== undefined && offset <=
 * before` drops the position for any record read again at the same offset, and a held record
 * (tier-pipeline.ts waitAt) is read again at its own offset by design, with no reload between.
 *
 * Class: a guard against a log moved back that also fires on the runtime's own re-read.
 *
 * Fix I'd make: drop the position only for a record strictly below the last one read (`offset <
 * before`), or have the held re-read (`held` = true) pass doneBeforeLoad by: a record read again at
 * the same offset is the same record, and the position before it is still true.
 *
 * Fixed: only a record below one read before drops the kept position, and the record at the
 * commit's offset is checked by its timestamp whenever it is read (key-parking.ts doneBeforeLoad).
 */
jest.setTimeout(120_000);

const BIG = `big${'x'.repeat(1_497)}`;
const REPLAYS = 1_200;

/** k:big, a replay of k, succeeds on its turn and fails when it runs again. */
const world = () => heldReplaysWorld((label, runsOf) => label === 'k:big' && runsOf('k:big') >= 1);

describe('park-by-key, a kept tier position, then the record at the commit held (its copy too large for the DLQ)', () => {
  it('skips the records done behind it after the held record is read again, instead of running them all again', async () => {
    const w = world();
    w.broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('a'), partition: 0 });
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, value: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(T0) },
      });
    // k's record is a copy written under another state (NO_STATE_ID), which no hold judges either:
    // unlike a replay, whose run the state now records (ran-replays.ts), it runs again when read
    // again after its tier commit was lost, which is the re-read this test is about.
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from(BIG),
      partition: 0,
      headers: { ...template.headers, [HEADERS.originalOffset]: '999', [PARK_STATE_HEADER]: `${NO_STATE_ID}`, [HEADERS.dueAt]: String(T0) },
    }); // waits its turn behind k's hold
    const waitingAt = w.broker.records(tier1m!.topic, 0).length - 1;
    for (let i = 1; i <= REPLAYS; i++) replay(`r${i}`, 'rep', 1_000 + i);
    const runsOfReplays = () => w.handled.filter((h) => h.startsWith('r')).length;
    await w.broker.run({ maxSteps: 50_000, stopWhen: () => runsOfReplays() === REPLAYS });
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(waitingAt);

    // k's release commits the main state; the tier commits after it are refused once.
    const commit = w.broker.commit.bind(w.broker);
    let refused = false;
    w.broker.commit = (groupId, offsets) => {
      if (!refused && offsets.some((o) => o.topic === tier1m!.topic && Number(o.offset) > waitingAt)) {
        refused = true;
        throw new BrokerRefusedError('The coordinator is not available');
      }
      commit(groupId, offsets);
    };
    // The refused commit reaches the client: kafkajs reads k's last tier record again.
    await w.broker.run({ until: w.clock.now() + 3 * 3_600_000, stopWhen: () => refused && w.runsOf('k:big') === 1 });
    await w.broker.run({ until: w.clock.now() + 1_000 });
    expect(refused).toBe(true);
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(waitingAt);

    // The state names k's replay as run (ran-unjudged.ts) where its budget has room: here it has
    // none (as a state near its budget), so the replay is read again as it was before that.
    const main = w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0)!;
    expect(main).toMatch(/ %/);
    w.broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: String(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)), metadata: main.replace(/ %\S+/g, '') }]);
    // A deploy: the 1m tier is read again from k's replay, whose key is free now.
    w.limits.set(consumer.tiers[1]!.topic, 1_000).set(consumer.dlqTopic, 1_000);
    w.broker.rebalance(consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 60_000, stopWhen: () => w.events.some((e) => e.type === 'publish-held') });
    expect(w.events.some((e) => e.type === 'publish-held')).toBe(true);
    w.limits.clear(); // the operator raises the limits: the held copy goes to the DLQ
    await w.broker.run({ maxSteps: 50_000, until: w.clock.now() + 3_600_000, stopWhen: () => runsOfReplays() >= 2 * REPLAYS });
    await retrying.stop();

    // Seen: 1,200 run again. Bound for two incidents (a refused commit, a rebalance): 2 x (500 + 10).
    expect(runsOfReplays() - REPLAYS).toBeLessThanOrEqual(2 * (500 + 10));
  });
});
