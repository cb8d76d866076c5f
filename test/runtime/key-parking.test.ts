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

/** Key parking over a consumer of the in-memory broker whose seeks are recorded and whose next commit can be refused. */
function setup(outcomes: Record<string, HandleOutcome>, budgetBytes = 4000) {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, 1);
  const inner = broker.port().consumer('g');
  const seeks: TopicPartitionOffset[] = [];
  const handled: string[] = [];
  const pauses: string[] = [];
  let refuseNextCommit = false;
  const consumer: ConsumerPort = {
    ...inner,
    pause: (t) => void pauses.push(`pause ${t[0]!.partitions.join()}`),
    resume: (t) => void pauses.push(`resume ${t[0]!.partitions.join()}`),
    seek: (s) => void seeks.push(s),
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuseNextCommit) {
        refuseNextCommit = false;
        throw new Error('The coordinator is not available');
      }
      await inner.commitOffsets(offsets);
    },
    committed: (topic, partitions) => inner.committed(topic, partitions),
  };
  const parking = createKeyParking({
    mainTopic: MAIN,
    consumer: () => consumer,
    handle: async (r) => {
      const label = `${r.message.key}:${r.message.value}`;
      handled.push(label);
      return outcomes[label] ?? 'success';
    },
    emit: () => {},
    budgetBytes,
    holdExpiryMs: 3_600_000,
    now: () => 0,
    setTimer: () => () => {},
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: () => {},
  });
  return { broker, parking, seeks, handled, pauses, refuseCommit: () => (refuseNextCommit = true) };
}

describe('key parking', () => {
  it('reads the partition again from the oldest parked record when it reloads its state after a failed commit', async () => {
    const s = setup({ 'k:a': 'tier' });
    await s.parking.onMainRecord(record(0, 'k', 'a')); // into the tiers: k is held
    await s.parking.onMainRecord(record(1, 'k', 'b')); // parked
    s.refuseCommit();
    await expect(s.parking.onMainRecord(record(2, 'other', 'x'))).rejects.toThrow('coordinator');
    expect(s.seeks).toEqual([]);
    // The client delivers the failed record again; the state comes back from the last commit.
    await s.parking.onMainRecord(record(2, 'other', 'x'));
    expect(s.seeks).toEqual([{ topic: MAIN, partition: 0, offset: '1' }]);
    // The re-read brings b back into memory; releasing k runs it.
    await s.parking.onMainRecord(record(1, 'k', 'b'));
    await s.parking.onTierRecord(
      { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '0' } } },
      async () => ({ outcome: 'success', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } }),
    );
    expect(s.handled).toEqual(['k:a', 'other:x', 'other:x', 'k:b']);
    expect(s.broker.committedOffset('g', MAIN, 0)).toBe(3);
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
    const s = setup(Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as HandleOutcome])), 120);
    let offset = 0;
    for (const key of keys) await s.parking.onMainRecord(record(offset++, key, 'a'));
    expect(s.pauses).toEqual(['pause 0']);
    s.refuseCommit();
    const k0 = { topic: `${MAIN}.retry.1m`, partition: 0, message: { key: Buffer.from('k0'), value: Buffer.from('a'), offset: '0', timestamp: '0', headers: { 'x-original-offset': '0' } } };
    await expect(s.parking.onTierRecord(k0, async () => ({ outcome: 'success', commit: { topic: `${MAIN}.retry.1m`, partition: 0, offset: '1' } }))).rejects.toThrow('coordinator');
    expect(s.pauses).toEqual(['pause 0', 'resume 0']);
  });
});
