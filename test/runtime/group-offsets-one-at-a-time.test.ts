import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { OffsetsAdminLike } from '../../src/runtime/adapters/group-offsets';

/**
 * The group-offsets reader (group-offsets.ts), with admins that say what was asked of them when.
 * The Confluent adapter's reads go one at a time (oneAtATime): each holds a thread of Node's
 * libuv pool while it waits, and side by side they would take the pool from the application.
 */
function admins(answers: (() => Promise<unknown>)[]) {
  const events: string[] = [];
  let made = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const create = (): OffsetsAdminLike => {
    const id = ++made;
    let connected = false;
    const ask = async <T>(what: string): Promise<T> => {
      if (!connected) throw new Error(`admin ${id} asked ${what} while not connected`);
      events.push(`admin ${id} ${what}`);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        const answer = answers.shift();
        return (await (answer ?? (async () => [{ topic: 'billing.main', partitions: [{ partition: 0, offset: '7', metadata: null }] }]))()) as T;
      } finally {
        inFlight--;
      }
    };
    return {
      connect: async () => {
        connected = true;
        events.push(`admin ${id} connect`);
      },
      disconnect: async () => {
        // The Confluent admin's disconnect waits for the request under way, blocking the event loop.
        if (inFlight > 0) events.push(`admin ${id} disconnected with a request in flight`);
        connected = false;
        events.push(`admin ${id} disconnect`);
      },
      fetchOffsets: () => ask('fetchOffsets'),
      fetchTopicOffsets: () => ask('fetchTopicOffsets'),
    };
  };
  return { create, events, mostInFlight: () => mostInFlight };
}

const timedOut = () => Promise.reject(Object.assign(new Error('Local: Timed out'), { code: -185 }));
const later = <T>(ms: number, value: T) => () => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("the group-offsets reader", () => {
  it('with oneAtATime, sends one request at a time (reads left behind by a bounded wait included), and keeps its admin through a failure', async () => {
    const made = admins([async () => later(30, undefined)().then(() => Promise.reject(new Error('Local: Timed out'))), later(5, [])]);
    const reader = groupOffsetsReader(made.create, 'billing', { oneAtATime: true });
    // Two reads at once, as two partitions' waits read their commits: the first fails.
    const both = await Promise.allSettled([reader.committed('billing.main', [0]), reader.logStarts('billing.main', [0])]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(made.mostInFlight()).toBe(1);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 fetchTopicOffsets']);
    await reader.close();
    expect(made.events.filter((e) => e.includes('in flight'))).toEqual([]);
  });

  it('close() waits for the request under way (abandoned by its caller or not) and then disconnects; reads after it are refused', async () => {
    const made = admins([later(30, [{ topic: 'billing.main', partitions: [{ partition: 0, offset: '9', metadata: null }] }])]);
    const reader = groupOffsetsReader(made.create, 'billing', { oneAtATime: true });
    const read = reader.committed('billing.main', [0]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const closing = reader.close();
    await expect(reader.committed('billing.main', [0])).rejects.toThrow(/left its group/);
    await closing;
    expect(await read).toEqual([{ partition: 0, offset: '9', metadata: null }]);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 disconnect']);
  });

  it('open() connects before the first read, in the line of requests; a failed connect is met again by the next read', async () => {
    let refuse = true;
    const made = admins([]);
    const reader = groupOffsetsReader(() => {
      const admin = made.create();
      return { ...admin, connect: async () => (refuse ? Promise.reject(new Error('Local: Broker transport failure')) : admin.connect()) };
    }, 'billing', { oneAtATime: true });
    reader.open();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(made.events).toEqual([]);
    refuse = false;
    expect(await reader.committed('billing.main', [0])).toEqual([{ partition: 0, offset: '7', metadata: null }]);
    expect(made.events).toEqual(['admin 2 connect', 'admin 2 fetchOffsets']);
    await reader.close();
  });

  it('reads through the admin\u2019s own committedOf when it has one, for just the partitions asked', async () => {
    const asked: string[] = [];
    const made = admins([]);
    const reader = groupOffsetsReader(() => ({ ...made.create(), committedOf: async (topic, partitions) => (asked.push(`${topic} ${partitions.join(',')}`), partitions.map((partition) => ({ partition, offset: '0', metadata: null }))) }), 'billing');
    expect(await reader.committed('billing.main', [2, 5])).toEqual([{ partition: 2, offset: '0', metadata: null }, { partition: 5, offset: '0', metadata: null }]);
    expect(asked).toEqual(['billing.main 2,5']);
    expect(made.events).toEqual(['admin 1 connect']);
  });

  it('without oneAtATime (the kafkajs adapter) reads go out as they come, on one admin kept through a failure', async () => {
    const made = admins([timedOut]);
    const reader = groupOffsetsReader(made.create, 'billing');
    await expect(reader.committed('billing.main', [0])).rejects.toThrow(/Timed out/);
    await Promise.all([reader.committed('billing.main', [0]), reader.committed('billing.main', [0])]);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 fetchOffsets', 'admin 1 fetchOffsets']);
    expect(made.mostInFlight()).toBe(2);
    await reader.close();
  });
});
