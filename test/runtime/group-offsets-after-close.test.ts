import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { OffsetsAdminLike } from '../../src/runtime/adapters/group-offsets';

/** Admins as a client makes them: each connected one holds connections (and the process) until disconnected. */
function admins() {
  let connected = 0;
  const create = (): OffsetsAdminLike => ({
    connect: async () => void connected++,
    disconnect: async () => void connected--,
    fetchOffsets: async ({ topics }) => topics.map((topic) => ({ topic, partitions: [{ partition: 0, offset: '7', metadata: null }] })),
    fetchTopicOffsets: async () => [{ partition: 0, low: '3' }, { partition: 1, low: 'x' }],
  });
  return { create, connected: () => connected };
}

describe("a consumer's committed-offsets reader, closed as the consumer leaves", () => {
  it('leaves no admin connected: a read after close() (a record still running past the drain deadline) is refused, not reconnected', async () => {
    const made = admins();
    const reader = groupOffsetsReader(made.create, 'billing');
    expect(await reader.committed('billing.main', [0])).toEqual([{ partition: 0, offset: '7', metadata: null }]);
    // A low watermark that is no offset (a client that leaves it out) says nothing of its partition.
    expect(await reader.logStarts('billing.main', [0, 1])).toEqual([{ partition: 0, offset: '3' }]);
    await reader.close();
    await expect(reader.committed('billing.main', [0])).rejects.toThrow(/left its group/);
    expect(made.connected()).toBe(0);
  });

  it('leaves no admin connected when close() comes while the first read still connects', async () => {
    const made = admins();
    const reader = groupOffsetsReader(made.create, 'billing');
    const read = reader.committed('billing.main', [0]);
    await reader.close();
    await read.catch(() => undefined);
    expect(made.connected()).toBe(0);
  });
});
