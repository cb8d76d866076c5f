import { groupReaderAdmin } from '../../src/runtime/adapters/confluent-group-reader';
import { ReadSlots } from '../../src/runtime/adapters/native-read-slots';
import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { ReaderConsumerLike } from '../../src/runtime/adapters/confluent-group-reader';

type NativeAnswer = Parameters<Parameters<NonNullable<ReturnType<ReaderConsumerLike['_getInternalClient']>>['committed']>[2]>;

/** A reader consumer and its dependent admin that write what happens to them in one log; its native committed() answers `native`. */
function readerWritingTo(log: string[], fail: { adminConnect?: boolean; adminDisconnect?: boolean } = {}, native: NativeAnswer = [null, []]): ReaderConsumerLike {
  return {
    _getInternalClient: () => ({
      committed: (partitions, timeoutMs, callback) => {
        log.push(`committed ${partitions.map((p) => `${p.topic}-${p.partition}`).join(',')} within ${timeoutMs} ms`);
        setImmediate(() => callback(...native));
      },
    }),
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
      fetchOffsets: async () => {
        throw new Error('not for the reader');
      },
      fetchTopicOffsets: async (topic) => [{ partition: 0, low: topic.length.toString() }],
    }),
  };
}

describe('the Confluent group reader (a consumer of the group that never joins, and an admin over it)', () => {
  it('reads commits through the consumer\u2019s native committed() (rd_kafka_committed), as the native layer answers them', async () => {
    const log: string[] = [];
    const answer: NativeAnswer = [
      null,
      [
        { topic: 'orders', partition: 0 }, // no commit: the native layer gives no offset
        { topic: 'orders', partition: 1, offset: 0 }, // the KafkaJS layer would read this as null too
        { topic: 'orders', partition: 2, offset: -2, metadata: '' }, // kafkajs's reset commit stands
        { topic: 'orders', partition: 3, offset: 41, metadata: 'state\0' },
      ],
    ];
    const reader = groupReaderAdmin(readerWritingTo(log, {}, answer), 'g');
    expect(await reader.committedOf!('orders', [0, 1, 2, 3])).toEqual([
      { partition: 0, offset: '-1', metadata: null },
      { partition: 1, offset: '0', metadata: null },
      { partition: 2, offset: '-2', metadata: '' },
      { partition: 3, offset: '41', metadata: 'state' },
    ]);
    expect(log).toEqual(['committed orders-0,orders-1,orders-2,orders-3 within 5000 ms']);
  });

  it('refuses a park state of an earlier release that holds keys (cut by the native answer, and read whole by nothing safe), saying how to move the group', async () => {
    const log: string[] = [];
    // Stored: 'krt-parked/1 +6 AAAAAAAAAAAA@6:5' (kafkajs wrote no NUL); the native layer cut its last byte.
    const reader = groupReaderAdmin(readerWritingTo(log, {}, [null, [{ topic: 'orders', partition: 0, offset: 7, metadata: 'krt-parked/2 x .' }, { topic: 'orders', partition: 1, offset: 5, metadata: 'krt-parked/1 +6 AAAAAAAAAAAA@6:' }]]), 'billing');
    await expect(reader.committedOf!('orders', [0, 1])).rejects.toThrow(
      'orders-1 holds a park state of an earlier release (krt-parked/1) with more than its position in it (keys in retry, parked records, marks), which @confluentinc/kafka-javascript cannot read whole: run this release on kafkajs (kafkajsPort) until every partition has taken a record, so its state is written again in the current format, then move to confluentPort',
    );
    await expect(groupReaderAdmin(readerWritingTo([], {}, [null, [{ topic: 'orders', partition: 0, offset: 5, metadata: 'krt-parked/1 +0 ~' }]]), 'g').committedOf!('orders', [0])).rejects.toThrow(/orders-0 holds a park state of an earlier release/);
    // Never through the admin, whose coordinator request aborted the process and whose C-string read runs past the metadata.
    expect(log).toEqual(['committed orders-0,orders-1 within 5000 ms']);
  });

  it('gives a park state of an earlier release that holds nothing as cut: its position reads at or below the one stored (records run again, none skipped)', async () => {
    // Stored: 'krt-parked/1 +12' and 'krt-parked/1 +0'.
    const reader = groupReaderAdmin(readerWritingTo([], {}, [null, [{ topic: 'orders', partition: 0, offset: 5, metadata: 'krt-parked/1 +1' }, { topic: 'orders', partition: 1, offset: 9, metadata: 'krt-parked/1 +' }]]), 'g');
    expect(await reader.committedOf!('orders', [0, 1])).toEqual([
      { partition: 0, offset: '5', metadata: 'krt-parked/1 +1' },
      { partition: 1, offset: '9', metadata: 'krt-parked/1 +' },
    ]);
  });

  it('never reads commits through its admin (ListConsumerGroupOffsets, a coordinator request of an admin handle)', async () => {
    const log: string[] = [];
    const reader = groupReaderAdmin(readerWritingTo(log), 'billing');
    await expect(reader.fetchOffsets({ groupId: 'billing', topics: ['orders'] })).rejects.toThrow("the Confluent reader of group billing reads commits only through its consumer's committed()");
    expect(log).toEqual([]);
  });

  it('takes a partition answered with an error, or not answered, for a failed read, never for "no commit"', async () => {
    const withError = groupReaderAdmin(readerWritingTo([], {}, [null, [{ topic: 'orders', partition: 0, offset: 3 }, new Error('Broker: Group authorization failed')]]), 'g');
    await expect(withError.committedOf!('orders', [0, 1])).rejects.toThrow('could not read the committed offset of orders-1: Broker: Group authorization failed');
    const without = groupReaderAdmin(readerWritingTo([], {}, [null, []]), 'g');
    await expect(without.committedOf!('orders', [0])).rejects.toThrow('could not read the committed offset of orders-0: the client answered without it');
  });

  it('passes a failed read on as the client gave it', async () => {
    const timedOut = Object.assign(new Error('Local: Timed out'), { code: -185 });
    await expect(groupReaderAdmin(readerWritingTo([], {}, [timedOut, []]), 'g').committedOf!('orders', [0])).rejects.toBe(timedOut);
  });

  it('says so when the consumer has no native committed() to read through (not connected, or another major version)', async () => {
    const reader = groupReaderAdmin({ ...readerWritingTo([]), _getInternalClient: () => undefined }, 'g');
    await expect(reader.committedOf!('orders', [0])).rejects.toThrow(/no native committed\(\)/);
  });

  it('connects the consumer before its admin, and reads log starts through the admin', async () => {
    const log: string[] = [];
    const reader = groupReaderAdmin(readerWritingTo(log), 'g');
    await reader.connect();
    expect(await reader.fetchTopicOffsets('abc')).toEqual([{ partition: 0, low: '3' }]);
    expect(log).toEqual(['consumer connect', 'admin connect']);
  });

  it('destroys the consumer\u2019s handle when its admin cannot connect, and says why', async () => {
    const log: string[] = [];
    await expect(groupReaderAdmin(readerWritingTo(log, { adminConnect: true }), 'g').connect()).rejects.toThrow('admin refused');
    expect(log).toEqual(['consumer connect', 'admin connect', 'consumer disconnect']);
  });

  it('destroys the consumer\u2019s handle on disconnect even when its admin fails to disconnect', async () => {
    const log: string[] = [];
    const reader = groupReaderAdmin(readerWritingTo(log, { adminDisconnect: true }), 'g');
    await reader.connect();
    await expect(reader.disconnect()).rejects.toThrow('admin already gone');
    expect(log).toEqual(['consumer connect', 'admin connect', 'admin disconnect', 'consumer disconnect']);
  });

  describe('its reads take turns with every other reader of the process (each holds a libuv pool thread until answered)', () => {
    /** A reader whose native reads and log-start reads wait until the test answers them. */
    function heldReader(log: string[], name: string) {
      const pending: (() => void)[] = [];
      const reader: ReaderConsumerLike = {
        ...readerWritingTo(log),
        _getInternalClient: () => ({
          committed: (_partitions, _timeoutMs, callback) => {
            log.push(`${name} commits read`);
            pending.push(() => callback(null, [{ topic: 'orders', partition: 0, offset: 1 }]));
          },
        }),
        dependentAdmin: () => ({
          ...readerWritingTo(log).dependentAdmin(),
          fetchTopicOffsets: () => new Promise((resolve) => {
            log.push(`${name} log starts read`);
            pending.push(() => resolve([]));
          }),
        }),
      };
      return { reader, answer: () => pending.shift()!() };
    }
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    it('eight readers with two slots: two reads reach the client at a time, commits and log starts alike', async () => {
      const log: string[] = [];
      const slots = new ReadSlots(2);
      const held = Array.from({ length: 8 }, (_, i) => heldReader(log, `r${i}`));
      const admins = held.map((h, i) => groupReaderAdmin(h.reader, `g${i}`, slots));
      const reads = admins.map((a, i) => (i % 2 === 0 ? a.committedOf!('orders', [0]) : a.fetchTopicOffsets('orders')).then(() => `r${i} answered`, (e: Error) => e.message));
      await turn();
      expect(log).toEqual(['r0 commits read', 'r1 log starts read']);
      held[1]!.answer();
      await turn();
      expect(log).toEqual(['r0 commits read', 'r1 log starts read', 'r2 commits read']);
      for (let i = 0; i < 8; i++) {
        if (i === 1) continue;
        held[i]!.answer();
        await turn();
      }
      expect(log.filter((l) => l.endsWith('read'))).toHaveLength(8);
      expect(await Promise.all(reads)).toEqual(held.map((_, i) => `r${i} answered`));
    });

    it('a read still waiting for its turn when its reader disconnects fails without reaching the client', async () => {
      const log: string[] = [];
      const slots = new ReadSlots(1);
      const [busy, leaving] = [heldReader(log, 'busy'), heldReader(log, 'leaving')];
      const first = groupReaderAdmin(busy.reader, 'g1', slots).committedOf!('orders', [0]);
      const second = groupReaderAdmin(leaving.reader, 'g2', slots);
      await second.connect();
      const waiting = second.committedOf!('orders', [0]).catch((error: Error) => error.message);
      await second.disconnect();
      busy.answer();
      await first;
      expect(await waiting).toBe("the Confluent reader of group g2 left before its read's turn");
      expect(log.filter((l) => l.endsWith('read'))).toEqual(['busy commits read']);
    });

    it('a port closing gives up its read still waiting for a turn, so close() waits for no other port\u2019s read', async () => {
      const log: string[] = [];
      const slots = new ReadSlots(1);
      const [busy, closing] = [heldReader(log, 'busy'), heldReader(log, 'closing')];
      // Each port's reader as confluent.ts builds it.
      const busyPort = groupOffsetsReader(() => groupReaderAdmin(busy.reader, 'g1', slots), 'g1', { oneAtATime: true });
      const closingPort = groupOffsetsReader(() => groupReaderAdmin(closing.reader, 'g2', slots), 'g2', { oneAtATime: true });
      const first = busyPort.committed('orders', [0]);
      await turn();
      const waiting = closingPort.committed('orders', [0]).catch((error: Error) => error.message);
      await turn();
      let closed = false;
      const closingDone = closingPort.close().then(() => (closed = true));
      await turn();
      await turn();
      expect({ closed, waiting: await waiting }).toEqual({ closed: true, waiting: "the Confluent reader of group g2 left before its read's turn" });
      await closingDone;
      busy.answer();
      expect(await first).toEqual([{ partition: 0, offset: '1', metadata: null }]);
      expect(log.filter((l) => l.endsWith('read'))).toEqual(['busy commits read']);
    });
  });
});
