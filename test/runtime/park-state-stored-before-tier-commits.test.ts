import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import { keyHash, parkStateMetadata, emptyParkState, decodeParkState } from '../../src/runtime/park-state';
import type { OffsetCommit, TopicPartitionOffset } from '../../src/runtime/port';
import type { ParkState } from '../../src/runtime/park-state';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by an attack (s25), kept as the regression: Kafka checks offset.metadata.max.bytes per
 * partition. A commit request whose main-partition metadata is too large stores the other
 * partitions of the same request (the tier partitions: no metadata) and answers
 * OFFSET_METADATA_TOO_LARGE for the main one only (GroupMetadataManager.storeOffsets filters
 * the oversized entries; kafkajs then throws the first partition error). Key parking
 * committed "the main state and the tier record in one request" as if that were atomic;
 * it now commits the state first and the tier offsets only once the state is stored.
 */
const MAIN = 'orders';
const TIER1 = 'orders.retry.1m';

/** A state near the broker's limit (286 of 300 bytes): 18 keys in retry, read up to offset 150. */
function busyState(): ParkState {
  const state = emptyParkState(150n);
  for (let i = 0; i < 18; i++) state.held.set(keyHash(Buffer.from(`busy-${i}`)), BigInt(130 + i));
  return state;
}

function setup(state: ParkState = busyState(), BROKER_MAX_BYTES = 300) {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, 1);
  broker.createTopic(TIER1, 1);
  broker.commit('g', [{ topic: MAIN, partition: 0, offset: '150', metadata: parkStateMetadata(state) }]);
  expect(Buffer.byteLength(parkStateMetadata(state))).toBeLessThanOrEqual(BROKER_MAX_BYTES);
  const base = broker.port().consumer('g');
  const refused: number[] = [];
  // Kafka's coordinator: stores every partition whose metadata fits, refuses the others.
  base.commitOffsets = async (offsets: OffsetCommit[]) => {
    const fits = offsets.filter((o) => Buffer.byteLength(o.metadata ?? '') <= BROKER_MAX_BYTES);
    broker.commit('g', fits);
    if (fits.length < offsets.length) {
      refused.push(offsets.length - fits.length);
      throw Object.assign(new Error('The metadata field of the offset request was too large'), { name: 'KafkaJSProtocolError', type: 'OFFSET_METADATA_TOO_LARGE', code: 12, retriable: false });
    }
  };
  const handled: string[] = [];
  const events: RetryEvent[] = [];
  const parking = createKeyParking({
    mainTopic: MAIN,
    tierTopics: [],
    consumer: () => base,
    handle: async (r) => (handled.push(`${r.message.key}@${r.message.offset}`), 'success'),
    emit: (e) => events.push(e),
    budgetBytes: 4000, // the default: above this broker's limit
    holdExpiryMs: 7 * 24 * 3_600_000,
    now: () => 0,
    setTimer: () => () => {},
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: () => {},
  });
  return { broker, parking, handled, events, refused };
}

describe('a park-by-key state refused as too large for the main partition: its tier commits are not sent', () => {
  // Was (before the fix: key-parking.ts:422-424 with :305-318): a record replayed from the DLQ (key k free)
  // fails again and goes on to tier 2; its hold on k is committed with its tier-1 commit in
  // one request. The main state is refused as too large, the tier-1 commit is stored: the
  // replayed record is never read again, so nothing takes the hold again, and a newer record
  // of k runs at once while the older one still waits in tier 2 (an older update later lands
  // on a newer one). Class: a multi-partition commit treated as atomic when the broker
  // refuses per partition. Fix: commit the tier offsets only after the main state's commit
  // succeeded (two requests, main state first), or on a too-large refusal commit the tier
  // partitions back to where they were before the operation.
  it('a newer record of the key still waits for the replayed record in tier 2', async () => {
    const s = setup();
    const replayed = {
      topic: TIER1,
      partition: 0,
      message: { key: Buffer.from('k'), value: Buffer.from('old'), offset: '0', timestamp: '0', headers: { [HEADERS.originalOffset]: '100', [HEADERS.replayedFromDlq]: 'orders.dlq/0:7' } },
    };
    const wentOn = async (): Promise<{ outcome: HandleOutcome; commit: TopicPartitionOffset }> => ({ outcome: 'tier', commit: { topic: TIER1, partition: 0, offset: '1' } });
    const first = await s.parking.onTierRecord(replayed, wentOn).then(() => 'committed', () => 'refused');
    expect({ first, refused: s.refused }).toEqual({ first: 'refused', refused: [1] });
    // Seen: the tier-1 commit landed past the replayed record, and the main state has no hold on k.
    const tierCommitted = s.broker.committedOffset('g', TIER1, 0);
    const kHeld = decodeParkState(150n, s.broker.committedMetadata('g', MAIN, 0)).held.has(keyHash(Buffer.from('k')));
    const replayedStillComes = tierCommitted === undefined || tierCommitted === 0 || kHeld;
    // Three other keys' retries succeed (room again under the lowered budget), then a newer record of k comes on the main topic.
    for (let i = 0; i < 3; i++) {
      const done = { topic: TIER1, partition: 0, message: { key: Buffer.from(`busy-${i}`), value: Buffer.from('b'), offset: String(1 + i), timestamp: '0', headers: { [HEADERS.originalOffset]: String(130 + i) } } };
      await s.parking.onTierRecord(done, async () => ({ outcome: 'success', commit: { topic: TIER1, partition: 0, offset: String(2 + i) } })).catch(() => undefined);
    }
    await s.parking.onMainRecord({ topic: MAIN, partition: 0, message: { key: Buffer.from('k'), value: Buffer.from('new'), offset: '150', timestamp: '0' } }).catch(() => undefined);
    // Seen: { replayedStillComes: false, newerRanWhileOlderInTier2: true }.
    expect({ replayedStillComes, newerRanWhileOlderInTier2: s.handled.includes('k@150') && !replayedStillComes }).toEqual({ replayedStillComes: true, newerRanWhileOlderInTier2: false });
  });

  // Was, same class, on the release path (key-parking.ts:432-438): key j is released by its
  // current tier record, and the drain runs j's waiting replayed record, which fails again and
  // holds j at its older offset (one more digit: 'j@41' for 'j@u'). The release commit (state,
  // both tier offsets) is refused for the main state only; the tier offsets are stored. The
  // committed state still holds j at 120, whose tier record is committed and never comes
  // again: j stays held until the hold expires (every tier's delay plus 7 days), its newer
  // records parked behind it, and the replayed record's tier-2 copy waits its turn as long.
  it('a released key is not left held by a tier record already committed', async () => {
    const state = emptyParkState(150n);
    for (let i = 0; i < 10; i++) state.held.set(keyHash(Buffer.from(`busy-${i}`)), BigInt(130 + i));
    const j = keyHash(Buffer.from('j'));
    state.held.set(j, 120n);
    // The broker keeps exactly this state: one more byte is refused.
    const s = setup(state, Buffer.byteLength(parkStateMetadata(state)));
    const replayed = { topic: TIER1, partition: 0, message: { key: Buffer.from('j'), value: Buffer.from('old'), offset: '0', timestamp: '0', headers: { [HEADERS.originalOffset]: '5', [HEADERS.replayedFromDlq]: 'orders.dlq/0:3' } } };
    const current = { topic: TIER1, partition: 0, message: { key: Buffer.from('j'), value: Buffer.from('j120'), offset: '1', timestamp: '0', headers: { [HEADERS.originalOffset]: '120' } } };
    // j is busy: the replayed record waits its turn.
    await s.parking.onTierRecord(replayed, async () => ({ outcome: 'tier', commit: { topic: TIER1, partition: 0, offset: '1' } }));
    // j's retry succeeds: the drain runs the replayed record, which goes on to tier 2 and holds j.
    const release = await s.parking.onTierRecord(current, async () => ({ outcome: 'success', commit: { topic: TIER1, partition: 0, offset: '2' } })).then(() => 'committed', () => 'refused');
    const committedState = decodeParkState(150n, s.broker.committedMetadata('g', MAIN, 0));
    const tierCommitted = s.broker.committedOffset('g', TIER1, 0) ?? 0;
    // Seen: { release: 'refused', jHeldAt: '120', tierCommitted: 2 }: nothing left to read can release j.
    const releasable = committedState.held.get(j) === undefined || BigInt(tierCommitted) <= 1n;
    expect(s.refused.length).toBeGreaterThan(0); // the broker's limit was reached (release: 'refused')
    expect({ release, jHeldAt: committedState.held.get(j)?.toString(), tierCommitted, releasable }).toMatchObject({ releasable: true });
  });
});
