import { HEADERS } from '../../src/naming/headers';
import { decodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { heldReplaysWorld } from './held-replays-world';
import { consumer, T0, tier1m } from './park-by-key-world';

/**
 * Found by attack 12 (duplicates past the bound; no record lost).
 *
 * Scenario: as attack12-held-record-drops-kept-position, with 1,600 replays of free keys behind
 * k's replay: k's release commits the main state and the tier commits after it are refused once,
 * so the 1m tier stays committed at k's replay with the kept position. A rebalance reads the
 * tier again: k's replay is verified (its timestamp) and, k being free, runs at once, in its
 * own eachMessage. The records behind it are then skipped one by one, each committed at the
 * next offset, and none of those commits keeps the position: the record there is neither one
 * waiting nor the one the load named, so withTierMetadata has no timestamp for it. A second
 * rebalance during the skips (a member joining) reads the tier from there with no position,
 * and every replay not yet skipped runs again.
 *
 * Seen: 1,598 of the 1,600 replays run twice after one refused commit and two rebalances; the
 * bound (three incidents: 3 x (500 + the records in hand)) is 1,530, and with a waiting record
 * at the commit the kept position would have skipped them all.
 *
 * Code at fault: src/runtime/key-parking.ts withTierMetadata: `firstTimestamp` only from a
 * waiting record at the commit's offset or `loaded.from === offset`: once the record at `from`
 * is done, the commit moves into the range the load says is done, and the position (`loaded.below`)
 * is given up while it still says what the next re-read may skip.
 *
 * Class: a durable position that survives only while its anchor record waits.
 *
 * Fixed: while a kept position's records are skipped, the tier commit stays on the last record
 * done, read, with its timestamp as the anchor and marked done (`^<timestamp>*`,
 * tier-commit-metadata.ts; key-parking.ts anchorOf).
 */
jest.setTimeout(120_000);

const REPLAYS = 1_600;


describe('park-by-key, a kept tier position whose record at the commit runs at once after a rebalance', () => {
  it('keeps the position through the skips, so a second rebalance runs none of the records done behind it again', async () => {
    const w = heldReplaysWorld();
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
    replay('k', 'bag', 999); // waits its turn behind k's hold
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
    await w.broker.run({ until: w.clock.now() + 3 * 3_600_000, stopWhen: () => refused && w.handled.includes('k:bag') });
    await w.broker.run({ until: w.clock.now() + 1_000 });
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(waitingAt);

    // A deploy: k's replay runs at once (k is free), and the records behind it are skipped.
    w.broker.rebalance(consumer.groups.main);
    await w.broker.run({ stopWhen: () => (w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0) ?? 0) >= waitingAt + 3 });
    expect(runsOfReplays()).toBe(REPLAYS);
    // The commit stays on the last record skipped, marked done, the position kept past it.
    const during = w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)!;
    expect(decodeTierCommit(BigInt(during), w.broker.committedMetadata(consumer.groups.main, tier1m!.topic, 0))).toEqual(expect.objectContaining({ firstDone: true, handledBelow: BigInt(waitingAt + 1 + REPLAYS) }));
    // A member joins during the skips.
    w.broker.rebalance(consumer.groups.main);
    await w.broker.run({ maxSteps: 50_000, until: w.clock.now() + 60_000, stopWhen: () => runsOfReplays() >= 2 * REPLAYS - 2 });
    await retrying.stop();
    // Past the skips, the commit is past every record done again, and keeps no position.
    const end = w.broker.records(tier1m!.topic, 0).length;
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(end);
    expect(decodeTierCommit(BigInt(end), w.broker.committedMetadata(consumer.groups.main, tier1m!.topic, 0)).handledBelow).toBeUndefined();

    // Seen: 1,598 run again. Bound for three incidents (a refused commit, two rebalances): 3 x (500 + 10).
    expect(runsOfReplays() - REPLAYS).toBeLessThanOrEqual(3 * (500 + 10));
  });
});
