import { HEADERS, PARK_STATE_HEADER } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

const MAIN = 'orders';
const TIER = 'orders.retry.1m';
const ID = 'abcdefgh';

const main = (offset: number, key: string, value: string): ConsumedRecord => ({ topic: MAIN, partition: 0, message: { key: Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '0' } });
const tier = (offset: number, key: string, value: string, headers: Record<string, string>): ConsumedRecord => ({ topic: TIER, partition: 0, message: { key: Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '0', headers } });

/**
 * Found by attack (attack10); fixed (s28, the commit that made this an ordinary test). Was: The floor of a guessed refusal, oneHoldBytes(state) (6ee06db),
 * measures one hold one record below the position (`@1`, one base-36 digit). A hold further
 * back (a record replayed from the DLQ, or a lost state's retry, failing on: its original offset
 * is far below the position) takes more digits, so at a budget guessed down to that floor its
 * hold is skipped (the key's newer records run before it), and the lost mark the skip writes
 * then pushes the id out too (fitId): two of the things the floor exists to keep. docs/runtime.md:
 * "a guess never takes the budget below an empty state with its id and one hold"; a replay
 * "holds its key if it fails on, whichever state runs it".
 *
 * Scenario (key parking alone, over the memory broker; the Confluent client's guess modelled as
 * confirmed-commit.ts throws it): p's state is at 150 with an id. h:1 (150) fails into the
 * tier and the commit of its hold is not shown twice (an outage): guessed too large at 43 bytes
 * (the commit sent was exactly one hold at `@1`, so the floor is reached). h:1 is read again,
 * fails again, its hold is committed; its tier retry succeeds (the state is empty again). Then
 * `krt dlq replay` sends r:old (main offset 100) through the tier; it fails on; r:new (151)
 * follows on the main topic.
 *
 * Seen: parking-hold-skipped {offset: '100', budgetBytes: 43, neededBytes: 44} (the hold `@1f`),
 * r:new runs at once while r:old waits in the next tier (r's order is lost), and the state is
 * committed as `krt-parked/2 +0 ~1f .`: the id is gone (fitId measures with the new `~1f` mark).
 *
 * Code: src/runtime/key-parking.ts oneHoldBytes (`held: new Map([[SOME_KEY_HASH, state.position
 * - 1n]])`), used by commitState's floor and by fitId; mayHold measures the real distance.
 *
 * Class: a floor sized for one instance of a variable-length field (the shortest) instead of
 * its widest.
 *
 * Fix I'd make: measure oneHoldBytes with the widest hold the state can take (a distance of
 * `position` itself, or 13 base-36 digits), and the lost mark at its widest too, so the floor
 * and fitId leave room for any one hold and any mark a skip may write.
 */
describe('park-by-key, a budget guessed down to its floor, then a replayed record failing on', () => {
  it('holds the replayed record\'s key (the floor leaves room for any one hold) and keeps the id', async () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic(MAIN, 1);
    broker.createTopic(TIER, 1);
    broker.commit('g', [{ topic: MAIN, partition: 0, offset: '150', metadata: `krt-parked/2 +0 !${ID} .\0` }]);
    const consumer = broker.port().consumer('g');
    const store = consumer.commitOffsets.bind(consumer);
    let outage = 0;
    consumer.commitOffsets = async (offsets) => {
      if (outage > 0 && offsets.some((o) => o.topic === MAIN && (o.metadata ?? '').includes('@'))) {
        outage--;
        // What confirmed-commit.ts throws for a commit not shown twice, with more metadata than the stored one.
        throw Object.assign(new Error('the group coordinator does not show the commit; it goes out again'), { code: 'OFFSET_METADATA_TOO_LARGE', guessed: true });
      }
      await store(offsets);
    };
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    /** Each record's outcomes in turn (then success): h:1 fails on the main topic, again when read again, then succeeds in the tier. */
    const outcomes: Record<string, HandleOutcome[]> = { 'h:1': ['tier', 'tier'], 'r:old': ['tier'] };
    const outcome = (r: ConsumedRecord): HandleOutcome => {
      const label = `${r.message.key}:${r.message.value}`;
      handled.push(label);
      return outcomes[label]?.shift() ?? 'success';
    };
    const parking = createKeyParking({
      mainTopic: MAIN,
      tierTopics: [TIER],
      consumer: () => consumer,
      handle: async (r) => outcome(r),
      emit: (e) => events.push(e),
      budgetBytes: 4000,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    const runTier = (r: ConsumedRecord) => parking.onTierRecord(r, async () => ({ outcome: outcome(r), commit: { topic: TIER, partition: 0, offset: String(Number(r.message.offset) + 1) } }));

    // h:1 fails into the tier: the commit of its hold is not shown twice (an outage) and guessed too large.
    outage = 1;
    await expect(parking.onMainRecord(main(150, 'h', '1'))).rejects.toThrow();
    await parking.onMainRecord(main(150, 'h', '1')); // read again: fails again, its hold committed
    expect(events.filter((e) => e.type === 'parking-budget-lowered')).toMatchObject([{ budgetBytes: 51 }]); // the floor: one hold at offset 0 with a retry id (`@46=r`, a replayed record's); was 43, one hold at `@1`
    expect(broker.committedMetadata('g', MAIN, 0)).toMatch(/@1 \.\0$/);
    // h's retry succeeds: its hold is released, the state is empty again.
    await runTier(tier(0, 'h', '1', { [HEADERS.originalOffset]: '150', [PARK_STATE_HEADER]: ID }));
    // krt dlq replay sends r:old (main offset 100, long in the DLQ) through the tier; it fails on.
    await runTier(tier(1, 'r', 'old', { [HEADERS.originalOffset]: '100', [HEADERS.replayedFromDlq]: 'orders.dlq/0:7' }));
    // r's newer record.
    await parking.onMainRecord(main(151, 'r', 'new'));

    // Seen: parking-hold-skipped {offset 100, budgetBytes 43, neededBytes 44}, r:new ran while
    // r:old is still in retry, and the state committed without its id (`krt-parked/2 +0 ~1f .`).
    expect(events.filter((e) => e.type === 'parking-hold-skipped')).toEqual([]);
    expect(handled).toEqual(['h:1', 'h:1', 'h:1', 'r:old']); // r:new parked behind r:old's retry
    expect(broker.committedMetadata('g', MAIN, 0)).toContain(`!${ID}`);
  });
});
