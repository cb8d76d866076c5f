import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { emptyParkState, keyHash, parkStateMetadata, retryIdOfReplay } from '../../src/runtime/park-state';
import { MAIN, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';
import { consumer, T0, world as fullWorld } from './park-by-key-world';

/**
 * Attack 19 on 2f3e92d: a LOST record. A replay whose original offset is at or past the position
 * holds its key short of its own offset (holdOffsetOf; at position - 1 then, at the position now); its copies are the current retry only by their
 * retry id (isCurrentRetry, original > hold). A copy whose x-park-state arrives damaged reads as
 * carrying no retry id: not current, and (no lost/shed mark, not a replay) not unjudged either,
 * so it is skipped as stale and never runs nor reaches the DLQ. sameRetry lets an unreadable
 * value prove nothing at the hold's own offset (session 37); isCurrentRetry did not.
 *
 * Fixed: a copy whose value does not read, past a hold with a retry id, runs unjudged in its
 * turn (key-parking.ts damagedPastReplayHold): it releases no hold, since it may be a stale copy
 * of another retry (attack20-damaged-stale-copy-releases-replay-hold.test.ts), and a retry whose
 * last copy it was keeps its key until the hold expires.
 */
jest.setTimeout(60_000);

describe('attack 19: a damaged copy of a replay past the position', () => {
  const POSITION = 10;
  const RETRY_ID = retryIdOfReplay(TIER, 0, '0', '0');

  it('is not skipped as stale (unit): it waits its turn behind the hold it cannot prove its own, and runs once that hold expires', async () => {
    const w = parkingWorld({ outcomes: { [`tier j@${POSITION + 5}`]: 'tier' }, holdExpiryMs: 60_000 });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: String(POSITION), metadata: parkStateMetadata(emptyParkState(BigInt(POSITION))) }]);
    await w.runTier(replayedRecord(0, 'j', POSITION + 5)); // holds j at the position with its retry id
    expect([...w.state().held]).toEqual([[keyHash(Buffer.from('j')), BigInt(POSITION)]]);
    w.outcomes[`tier j@${POSITION + 5}`] = 'success';
    await w.runTier(tierRecord(1, 'j', POSITION + 5, { [PARK_STATE_HEADER]: `.${RETRY_ID}X` }));
    expect(w.ofType('stale-tier-record')).toHaveLength(0);
    expect(w.handled).toEqual([`tier j@${POSITION + 5}`]); // waits: it may be a stale copy of another retry
    await w.advanceTo(60_000);
    expect(w.handled).toEqual([`tier j@${POSITION + 5}`, `tier j@${POSITION + 5}`]);
    expect(w.ofType('hold-expired')).toHaveLength(1);
  });

  it('runs (full runtime, as review-retry-id-malformed-header.test.ts but the replay names an offset past the position)', async () => {
    const w = fullWorld();
    w.broker.throwReaction = 'kafkajs';
    const tier10m = consumer.tiers[1]!.topic;
    const append = w.broker.append.bind(w.broker);
    w.broker.append = (topic, message) => {
      const value = message.headers?.[PARK_STATE_HEADER];
      if (topic === tier10m && typeof value === 'string') message = { ...message, headers: { ...message.headers, [PARK_STATE_HEADER]: `${value}X` } };
      return append(topic, message);
    };
    w.produce('j', 'z');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('j:z') });
    w.failOnce.add('k:r');
    w.replay('k', 'r', 7, 7); // original offset 7: past the position (1)
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();

    expect(w.handled).toContain('k:r FAIL'); // the replay ran and went on to the 10m tier
    expect(w.events.some((e) => e.type === 'hold-expired')).toBe(true); // its damaged copy waited for the replay's hold to expire
    expect(w.handled).toContain('k:r');
  });
});
