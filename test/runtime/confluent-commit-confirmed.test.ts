import { commitConfirmed } from '../../src/runtime/adapters/confirmed-commit';
import type { CommittingConsumerLike } from '../../src/runtime/adapters/confirmed-commit';
import { ReadSlots } from '../../src/runtime/adapters/native-read-slots';
import type { OffsetCommit } from '../../src/runtime/port';

/** How long a confirmation reads the group's commit here: the doubles answer at once, so a commit not shown by then never will be. */
const CONFIRM_WITHIN_MS = 100;

/**
 * The Confluent client as it behaves: commitOffsets() answers once the commit is queued;
 * the group coordinator stores it only if `stores` says so (a broker outage loses it).
 */
function confluentConsumer(stores: (o: OffsetCommit) => boolean) {
  const group = new Map<string, string>();
  const metadata = new Map<string, string | null>();
  const consumer: CommittingConsumerLike = {
    commitOffsets: async (offsets) => {
      for (const o of offsets) {
        if (!stores(o)) continue;
        group.set(`${o.topic}/${o.partition}`, o.offset);
        // Kept as a C string: read back without its NUL.
        metadata.set(`${o.topic}/${o.partition}`, o.metadata?.replace(/\u0000$/, '') ?? null);
      }
    },
    // Read back as its KafkaJS layer converts librdkafka's offsets: none is -1001 (INVALID),
    // and a stored 0 comes back null (`offset ? offset.toString() : null`).
    committed: async (partitions) =>
      partitions.map((p) => {
        const stored = group.get(`${p.topic}/${p.partition}`);
        return { ...p, offset: stored === undefined ? '-1001' : stored === '0' ? null : stored, metadata: metadata.get(`${p.topic}/${p.partition}`) ?? null };
      }),
  };
  return { consumer, group };
}

const at = (partition: number, offset: number): OffsetCommit => ({ topic: 'orders', partition, offset: String(offset) });

describe('a commit through the Confluent client', () => {
  it('is done once the group coordinator shows it', async () => {
    const { consumer, group } = confluentConsumer(() => true);
    await commitConfirmed(consumer, [at(0, 8), at(1, 3)], CONFIRM_WITHIN_MS);
    expect([...group.values()]).toEqual(['8', '3']);
  });

  it('is refused when the coordinator never stored it, although the client answered, so the committer sends it again', async () => {
    const { consumer } = confluentConsumer((o) => o.partition !== 1);
    await expect(commitConfirmed(consumer, [at(0, 8), at(1, 3)], CONFIRM_WITHIN_MS)).rejects.toThrow('does not show the commit of orders-1 at offset 3 (it shows -1001)');
  });

  it('is refused when the coordinator still shows an older commit of the partition', async () => {
    const { consumer } = confluentConsumer((o) => o.offset !== '9');
    await commitConfirmed(consumer, [at(0, 8)], CONFIRM_WITHIN_MS);
    await expect(commitConfirmed(consumer, [at(0, 9)], CONFIRM_WITHIN_MS)).rejects.toThrow('it shows 8');
  });

  it('is refused when the coordinator shows the offset with other metadata (a park-by-key state changed at the same offset)', async () => {
    const { consumer } = confluentConsumer((o) => o.metadata !== 'krt-parked/1 b\u0000');
    await commitConfirmed(consumer, [{ ...at(0, 8), metadata: 'krt-parked/1 a\u0000' }], CONFIRM_WITHIN_MS);
    await expect(commitConfirmed(consumer, [{ ...at(0, 8), metadata: 'krt-parked/1 b\u0000' }], CONFIRM_WITHIN_MS)).rejects.toThrow('orders-0 at offset 8');
    await expect(commitConfirmed(consumer, [{ ...at(0, 8), metadata: 'krt-parked/1 a\u0000' }], CONFIRM_WITHIN_MS)).resolves.toBeUndefined();
  });

  it('counts as done when the group committed past it since (another member, after a rebalance)', async () => {
    const { consumer, group } = confluentConsumer(() => false);
    group.set('orders/0', '20');
    await expect(commitConfirmed(consumer, [at(0, 8)], CONFIRM_WITHIN_MS)).resolves.toBeUndefined();
  });

  it('is done at offset 0, which the client reads back as null, when the coordinator shows the state it carried (a park-by-key state begun from nothing)', async () => {
    const { consumer } = confluentConsumer(() => true);
    await expect(commitConfirmed(consumer, [{ ...at(0, 0), metadata: 'krt-parked/1 +0 !mx5yralv\u0000' }], CONFIRM_WITHIN_MS)).resolves.toBeUndefined();
  });

  it('is refused at offset 0 when the null the client reads back comes with other metadata, or none', async () => {
    const { consumer } = confluentConsumer((o) => o.metadata !== 'krt-parked/1 +0 !b\u0000');
    await commitConfirmed(consumer, [{ ...at(0, 0), metadata: 'krt-parked/1 +0 !a\u0000' }], CONFIRM_WITHIN_MS);
    await expect(commitConfirmed(consumer, [{ ...at(0, 0), metadata: 'krt-parked/1 +0 !b\u0000' }], CONFIRM_WITHIN_MS)).rejects.toThrow('orders-0 at offset 0');
    const fresh = confluentConsumer(() => false);
    await expect(commitConfirmed(fresh.consumer, [{ ...at(0, 0), metadata: 'krt-parked/1 +0 !a\u0000' }], CONFIRM_WITHIN_MS)).rejects.toThrow('it shows -1001');
  });

  it('never takes a commit for too large where the coordinator shows no commit at all, however often it is lost', async () => {
    const { consumer } = confluentConsumer(() => false);
    const birth = { ...at(0, 0), metadata: 'krt-parked/1 +0 !AbC-_123\u0000' };
    for (let i = 0; i < 3; i++) {
      const refusal = await commitConfirmed(consumer, [birth], CONFIRM_WITHIN_MS).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ notStored: true });
      expect(refusal).not.toMatchObject({ code: 'OFFSET_METADATA_TOO_LARGE' });
    }
  });

  it('is done when the commit shows only on a later read: the client answered once it queued the commit, and the first read reached the coordinator before it', async () => {
    const { consumer, group } = confluentConsumer(() => true);
    const store = consumer.commitOffsets.bind(consumer);
    let queued: OffsetCommit[] = [];
    let reads = 0;
    consumer.commitOffsets = async (offsets) => void (queued = offsets);
    const read = consumer.committed.bind(consumer);
    consumer.committed = async (partitions, timeoutMs) => {
      if (++reads === 2) await store(queued); // stored between the first read and the second
      return read(partitions, timeoutMs);
    };
    group.set('orders/0', '5');
    await expect(commitConfirmed(consumer, [at(0, 8)], 1_000)).resolves.toBeUndefined();
    expect(reads).toBe(2);
  });

  it('reads the commit back in its turn with the process\u2019s readers (each read holds a libuv pool thread), its time-out counted from its turn', async () => {
    const { consumer } = confluentConsumer(() => true);
    const timeouts: number[] = [];
    const read = consumer.committed;
    consumer.committed = (partitions, timeoutMs) => {
      timeouts.push(timeoutMs);
      return read(partitions, timeoutMs);
    };
    const slots = new ReadSlots(1);
    let freeTheSlot!: () => void;
    const busy = slots.run(() => new Promise<void>((resolve) => (freeTheSlot = resolve)));
    const confirming = commitConfirmed(consumer, [at(0, 8)], 10_000, slots);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(timeouts).toEqual([]);
    freeTheSlot();
    await busy;
    await confirming;
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]).toBeLessThanOrEqual(10_000 - 300);
    expect(timeouts[0]).toBeGreaterThan(9_000);
  });
});
