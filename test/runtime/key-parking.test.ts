import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumerPort, OffsetCommit, TopicPartitionOffset } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

const MAIN = 'orders';
const record = (offset: number, key: string, value: string): ConsumedRecord => ({
  topic: MAIN,
  partition: 0,
  message: { key: Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '0' },
});

/**
 * Key parking over a consumer of the in-memory broker whose seeks, pauses and events are
 * recorded, whose next commit or pause can be refused, and whose `committed` answer the
 * test can hold back (a load in progress) or leave out.
 */
function setup(outcomes: Record<string, HandleOutcome>, budgetBytes = 4000, handling: (label: string) => Promise<void> = async () => {}) {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, 1);
  const inner = broker.port().consumer('g');
  const seeks: TopicPartitionOffset[] = [];
  const handled: string[] = [];
  const pauses: string[] = [];
  let refuseNextCommit = false;
  let refuseNextPause = false;
  let loading: Promise<void> | undefined;
  let answerNothing = false;
  const events: RetryEvent[] = [];
  const retries: (() => void)[] = [];
  const consumer: ConsumerPort = {
    ...inner,
    pause: (t) => {
      if (refuseNextPause) {
        refuseNextPause = false;
        throw new Error('The client is rejoining');
      }
      pauses.push(`pause ${t[0]!.partitions.join()}`);
    },
    resume: (t) => void pauses.push(`resume ${t[0]!.partitions.join()}`),
    seek: (s) => void seeks.push(s),
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuseNextCommit) {
        refuseNextCommit = false;
        throw new Error('The coordinator is not available');
      }
      await inner.commitOffsets(offsets);
    },
    committed: async (topic, partitions) => {
      await loading;
      return answerNothing ? [] : inner.committed(topic, partitions);
    },
  };
  const parking = createKeyParking({
    mainTopic: MAIN,
    tierTopics: [],
    consumer: () => consumer,
    handle: async (r) => {
      const label = `${r.message.key}:${r.message.value}`;
      handled.push(label);
      await handling(label);
      return outcomes[label] ?? 'success';
    },
    emit: (e) => void events.push(e),
    budgetBytes,
    holdExpiryMs: 3_600_000,
    now: () => 0,
    setTimer: () => () => {},
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: (work) => void retries.push(work),
  });
  /** Holds the answers of `committed` until the returned release is called. */
  const holdLoads = () => {
    let release!: () => void;
    loading = new Promise((r) => (release = r));
    return release;
  };
  return { broker, parking, seeks, handled, pauses, events, retries, holdLoads, refuseCommit: () => (refuseNextCommit = true), refusePause: () => (refuseNextPause = true), answerNothing: () => (answerNothing = true) };
}

/** A budget that fits five holds: 120 bytes, and 10 for the id a state begun from nothing takes. */
const FIVE_HOLDS = 130;

describe('key parking', () => {
  it('reads the partition again from the oldest parked record when it reloads its state after a failed commit', async () => {
    const s = setup({ 'k:a': 'tier' });
    await s.parking.onMainRecord(record(0, 'k', 'a')); // into the tiers: k is held
    await s.parking.onMainRecord(record(1, 'k', 'b')); // parked
    s.refuseCommit();
    await expect(s.parking.onMainRecord(record(2, 'other', 'x'))).rejects.toThrow('coordinator');
    expect(s.seeks).toEqual([]);
    // The client delivers the failed record again; the state comes back from the last commit,
    // and the partition is read again from b (the record in hand was fetched before that seek).
    await s.parking.onMainRecord(record(2, 'other', 'x'));
    expect(s.seeks).toEqual([{ topic: MAIN, partition: 0, offset: '1' }]);
    // The re-read brings b back into memory, then x again, which ran under this very state
    // before its commit was refused: it does not run again (ran-awaiting-commit.ts). Releasing k runs b.
    await s.parking.onMainRecord(record(1, 'k', 'b'));
    await s.parking.onMainRecord(record(2, 'other', 'x'));
    await s.parking.onTierRecord(
      { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '0' } } },
      async () => ({ outcome: 'success', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } }),
    );
    expect(s.handled).toEqual(['k:a', 'other:x', 'k:b']);
    expect(s.broker.committedOffset('g', MAIN, 0)).toBe(3);
  });

  it('reads a partition again from its position when the first record after the state was loaded comes past it, once: a gap still there is real', async () => {
    const s = setup({});
    s.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '2' }]); // the state lost at 2 (an offset reset, say)
    await s.parking.onMainRecord(record(4, 'k', 'late')); // fetched under the state before
    expect(s.seeks).toEqual([{ topic: MAIN, partition: 0, offset: '2' }]);
    expect(s.handled).toEqual([]);
    // Read again from 2: 2 and 3 are there, then a gap (a transaction marker at 4) before 5.
    await s.parking.onMainRecord(record(2, 'j', 'a'));
    await s.parking.onMainRecord(record(3, 'j', 'b'));
    await s.parking.onMainRecord(record(5, 'j', 'c'));
    expect(s.handled).toEqual(['j:a', 'j:b', 'j:c']);
    expect(s.seeks).toHaveLength(1);
  });

  it('takes the first record past the position after seeking back to it once: the gap is real (a transaction marker at the committed offset)', async () => {
    const s = setup({});
    s.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '2', metadata: 'krt-parked/1 +0\0' }]);
    await s.parking.onMainRecord(record(3, 'k', 'a'));
    await s.parking.onMainRecord(record(3, 'k', 'a')); // what the seek back to 2 reads first
    expect(s.seeks).toEqual([{ topic: MAIN, partition: 0, offset: '2' }]);
    expect(s.handled).toEqual(['k:a']);
    expect(s.broker.committedOffset('g', MAIN, 0)).toBe(4);
  });

  it('skips a record delivered twice instead of running or parking it again', async () => {
    const s = setup({ 'k:a': 'tier' });
    await s.parking.onMainRecord(record(0, 'k', 'a'));
    await s.parking.onMainRecord(record(1, 'k', 'b'));
    await s.parking.onMainRecord(record(1, 'k', 'b'));
    await s.parking.onMainRecord(record(0, 'k', 'a'));
    expect(s.handled).toEqual(['k:a']);
  });

  it('resumes a partition paused as full when an operation on it fails, so no partition stays paused with nobody to resume it', async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const s = setup(Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as HandleOutcome])), FIVE_HOLDS);
    let offset = 0;
    for (const key of keys) await s.parking.onMainRecord(record(offset++, key, 'a'));
    expect(s.pauses).toEqual(['pause 0']);
    s.refuseCommit();
    const k0 = { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k0'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '0' } } };
    await expect(s.parking.onTierRecord(k0, async () => ({ outcome: 'success', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } }))).rejects.toThrow('coordinator');
    expect(s.pauses).toEqual(['pause 0', 'resume 0']);
  });

  it('takes no record past one it declined at the budget when the client read on past its seeks (dropped): it seeks back to the position', async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const s = setup(Object.fromEntries(keys.slice(0, 5).map((k) => [`${k}:a`, 'tier' as HandleOutcome])), FIVE_HOLDS);
    let offset = 0;
    for (const key of keys) await s.parking.onMainRecord(record(offset++, key, 'a')); // k5:a (5) declined: the partition is full
    const k0 = { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k0'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '0' } } };
    await s.parking.onTierRecord(k0, async () => ({ outcome: 'success', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } })); // a release: resumed
    // The seek back to 5 and the resume's were dropped: the client reads on, past k5:a.
    await s.parking.onMainRecord(record(6, 'x', 'late'));
    expect(s.handled).not.toContain('x:late');
    expect(s.seeks.at(-1)).toEqual({ topic: MAIN, partition: 0, offset: '5' });
    await s.parking.onMainRecord(record(5, 'k5', 'a')); // what the seek back reads first
    await s.parking.onMainRecord(record(6, 'x', 'late'));
    expect(s.handled.slice(-2)).toEqual(['k5:a', 'x:late']);
  });

  it('says a partition is full, with its keys held and records parked, when it pauses it', async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const s = setup(Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as HandleOutcome])), FIVE_HOLDS);
    let offset = 0;
    for (const key of keys) await s.parking.onMainRecord(record(offset++, key, 'a'));
    expect(s.pauses).toEqual(['pause 0']);
    // The sixth record did not fit: it is read again once the partition resumes.
    expect(s.events.filter((e) => e.type === 'parking-full')).toEqual([{ type: 'parking-full', topic: MAIN, partition: 0, keys: 5, parked: 0 }]);
  });

  it('pauses a full partition once the client takes the pause it refused', async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const s = setup(Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as HandleOutcome])), FIVE_HOLDS);
    s.refusePause();
    let offset = 0;
    for (const key of keys.slice(0, 5)) await s.parking.onMainRecord(record(offset++, key, 'a')); // the fifth fills it
    expect(s.pauses).toEqual([]);
    expect(s.retries).toHaveLength(1);
    s.retries[0]!();
    expect(s.pauses).toEqual(['pause 0']);
  });

  it('says a partition’s state was lost when its commit holds an offset but no state', async () => {
    const s = setup({});
    s.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '2', metadata: '' }]);
    await s.parking.onMainRecord(record(2, 'k', 'a'));
    expect(s.events.filter((e) => e.type === 'park-state-lost')).toEqual([{ type: 'park-state-lost', topic: MAIN, partition: 0, offset: '2', metadata: 'none' }]);
    expect(s.handled).toEqual(['k:a']);
  });

  it('reads the state again after a rebalance that came while it was loading, instead of keeping the state read before it', async () => {
    const s = setup({ 'k:a': 'tier' });
    await s.parking.onMainRecord(record(0, 'k', 'a')); // k held
    s.parking.forget();
    const release = s.holdLoads();
    const stale = s.parking.onMainRecord(record(1, 'k', 'b'));
    await new Promise((r) => setImmediate(r)); // the load is asking for the commit
    s.parking.forget(); // the rebalance comes while the state loads
    release();
    await stale;
    // Another member released k and committed past b meanwhile.
    s.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '2', metadata: 'krt-parked/1 +0\0' }]);
    await s.parking.onMainRecord(record(2, 'k', 'c'));
    expect(s.handled).toEqual(['k:a', 'k:c']);
  });

  it('runs one operation of a partition at a time: a record waits until the one before it is done and committed', async () => {
    let finishFirst!: () => void;
    const first = new Promise<void>((r) => (finishFirst = r));
    const s = setup({}, 4000, (label) => (label === 'j:a' ? first : Promise.resolve()));
    const a = s.parking.onMainRecord(record(0, 'j', 'a'));
    const b = s.parking.onMainRecord(record(1, 'k', 'b'));
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(s.handled).toEqual(['j:a']);
    finishFirst();
    await Promise.all([a, b]);
    expect(s.handled).toEqual(['j:a', 'k:b']);
    expect(s.broker.committedOffset('g', MAIN, 0)).toBe(2);
  });

  it('keeps a full partition reading after a reload until its parked record is back in memory, then pauses it again', async () => {
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
    const s = setup({ 'k0:a': 'tier', ...Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as HandleOutcome])) }, FIVE_HOLDS);
    await s.parking.onMainRecord(record(0, 'k0', 'a')); // k0 held
    await s.parking.onMainRecord(record(1, 'k0', 'b')); // parked behind it
    let offset = 2;
    for (const key of keys) if (s.pauses.length === 0) await s.parking.onMainRecord(record(offset++, key, 'a'));
    expect(s.pauses).toEqual(['pause 0']);
    s.refuseCommit(); // a failed operation drops the state: the partition resumes
    const k1 = { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k1'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '2' } } };
    await expect(s.parking.onTierRecord(k1, async () => ({ outcome: 'tier', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } }))).rejects.toThrow('coordinator');
    expect(s.pauses).toEqual(['pause 0', 'resume 0']);
    // Reloaded at its budget, with b not in memory: it reads on (from b), not paused.
    await s.parking.onMainRecord(record(offset, 'k9', 'x'));
    expect(s.pauses).toEqual(['pause 0', 'resume 0']);
    await s.parking.onMainRecord(record(1, 'k0', 'b')); // the re-read brings b back
    expect(s.pauses).toEqual(['pause 0', 'resume 0', 'pause 0']);
  });

  it('reads a partition whose commit the client does not answer for as one with nothing committed', async () => {
    const s = setup({});
    s.answerNothing();
    await s.parking.onMainRecord(record(0, 'k', 'a'));
    expect(s.handled).toEqual(['k:a']);
    expect(s.broker.committedOffset('g', MAIN, 0)).toBe(1);
  });
});

describe('key parking across a rebalance', () => {
  const TIER = `${MAIN}.retry.1m`;
  const tierRecord = (offset: number, key: string, originalOffset: number): ConsumedRecord => ({
    topic: TIER,
    partition: 0,
    message: { key: Buffer.from(key), value: Buffer.from(`${key}@${originalOffset}`), offset: String(offset), timestamp: '0', headers: { 'x-original-offset': String(originalOffset) } },
  });
  const tierCommit = (offset: number) => ({ topic: TIER, partition: 0, offset: String(offset) });
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('a tier record whose handler finishes after a rebalance does not move the new generation\'s commit of its tier partition past records it has not run', async () => {
    const s = setup({ 'k:a': 'tier' });
    await s.parking.onMainRecord(record(0, 'k', 'a')); // into the tiers: k is held
    await s.parking.onMainRecord(record(1, 'k', 'b')); // parked behind it
    // k's retry (tier offset 5) is in the handler when the group rebalances.
    let finish!: () => void;
    const k = s.parking.onTierRecord(tierRecord(5, 'k', 0), () => new Promise((resolve) => (finish = () => resolve({ outcome: 'success', commit: tierCommit(6) }))));
    await turn();
    s.parking.forget();
    finish();
    await k;
    // Its release was never committed: the new generation reads the tier partition again
    // from its commit and still waits for k's retry at 5. A stale copy at 2 is committed
    // unrun, and that commit must stop at 3: past 5 a restart would never read k's retry again.
    await s.parking.onTierRecord(tierRecord(2, 'j', 9), async () => {
      throw new Error('a stale copy does not run');
    });
    expect(s.broker.committedOffset('g', TIER, 0)).toBe(3);
    await s.parking.onTierRecord(tierRecord(5, 'k', 0), async () => ({ outcome: 'success', commit: tierCommit(6) }));
    await s.parking.onMainRecord(record(1, 'k', 'b')); // read again from the oldest parked record
    expect(s.handled).toEqual(['k:a', 'k:b']);
  });
});
