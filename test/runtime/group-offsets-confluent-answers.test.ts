import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { OffsetsAdminLike } from '../../src/runtime/adapters/group-offsets';

/**
 * The Confluent client's admin fetchOffsets() (lib/kafkajs/_admin.js) resolves a partition's
 * error beside offset "-1001", and says "-1001" too for a partition with no commit. Read as
 * "no commit", an error made the runtime take a partition it had committed for a new log and
 * run its records again (found by a review of the clients' silent successes, session 45).
 */
function confluentAdmin(partitions: { partition: number; offset: string; metadata: string | null; error: unknown }[]): () => OffsetsAdminLike {
  return () => ({
    connect: async () => {},
    disconnect: async () => {},
    fetchOffsets: async ({ topics }) => topics.map((topic) => ({ topic, partitions })),
    fetchTopicOffsets: async () => [],
  });
}

describe("a group's committed offsets as the Confluent client's admin answers them", () => {
  it('reads a partition without a commit (-1001) as -1, the port\'s "no commit"', async () => {
    const reader = groupOffsetsReader(confluentAdmin([{ partition: 0, offset: '-1001', metadata: null, error: null }, { partition: 1, offset: '12', metadata: 'm\u0000\u0000', error: null }]), 'billing');
    expect(await reader.committed('billing.main', [0, 1])).toEqual([
      { partition: 0, offset: '-1', metadata: null },
      { partition: 1, offset: '12', metadata: 'm' },
    ]);
  });

  it('refuses the read when a partition asked for carries an error, rather than taking it for no commit', async () => {
    // As the client gives it: a plain object with a code and a message.
    const error = { code: 29, message: 'Broker: Topic authorization failed' };
    const reader = groupOffsetsReader(confluentAdmin([{ partition: 0, offset: '-1001', metadata: null, error }, { partition: 1, offset: '12', metadata: null, error: null }]), 'billing');
    await expect(reader.committed('billing.main', [0, 1])).rejects.toThrow("could not read group billing's committed offset of billing.main-0: Broker: Topic authorization failed");
    // A partition not asked for does not fail the read.
    expect(await reader.committed('billing.main', [1])).toEqual([{ partition: 1, offset: '12', metadata: null }]);
  });
});
