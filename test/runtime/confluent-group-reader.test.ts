import { groupReaderAdmin } from '../../src/runtime/adapters/confluent-group-reader';
import type { ReaderConsumerLike } from '../../src/runtime/adapters/confluent-group-reader';

/** A reader consumer and its dependent admin that write what happens to them in one log. */
function readerWritingTo(log: string[], fail: { adminConnect?: boolean; adminDisconnect?: boolean } = {}): ReaderConsumerLike {
  return {
    connect: async () => void log.push('consumer connect'),
    disconnect: async () => void log.push('consumer disconnect'),
    dependentAdmin: () => ({
      connect: async () => {
        log.push('admin connect');
        if (fail.adminConnect) throw new Error('admin refused');
      },
      disconnect: async () => {
        log.push('admin disconnect');
        if (fail.adminDisconnect) throw new Error('admin already gone');
      },
      fetchOffsets: async ({ groupId }) => [{ topic: `read for ${groupId}`, partitions: [] }],
      fetchTopicOffsets: async (topic) => [{ partition: 0, low: topic.length.toString() }],
    }),
  };
}

describe('the Confluent group reader (an admin over a consumer of the group that never joins)', () => {
  it('connects the consumer before its admin, and reads through the admin', async () => {
    const log: string[] = [];
    const reader = groupReaderAdmin(readerWritingTo(log));
    await reader.connect();
    expect(await reader.fetchOffsets({ groupId: 'g', topics: ['t'] })).toEqual([{ topic: 'read for g', partitions: [] }]);
    expect(await reader.fetchTopicOffsets('abc')).toEqual([{ partition: 0, low: '3' }]);
    expect(log).toEqual(['consumer connect', 'admin connect']);
  });

  it('destroys the consumer\u2019s handle when its admin cannot connect, and says why', async () => {
    const log: string[] = [];
    await expect(groupReaderAdmin(readerWritingTo(log, { adminConnect: true })).connect()).rejects.toThrow('admin refused');
    expect(log).toEqual(['consumer connect', 'admin connect', 'consumer disconnect']);
  });

  it('destroys the consumer\u2019s handle on disconnect even when its admin fails to disconnect', async () => {
    const log: string[] = [];
    const reader = groupReaderAdmin(readerWritingTo(log, { adminDisconnect: true }));
    await reader.connect();
    await expect(reader.disconnect()).rejects.toThrow('admin already gone');
    expect(log).toEqual(['consumer connect', 'admin connect', 'admin disconnect', 'consumer disconnect']);
  });
});
