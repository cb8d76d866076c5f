import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import type { KafkaJsMonitorLike } from '../../src/runtime/adapters/kafkajs-monitor';

type Message = { offset: string; timestamp: string; value: Buffer };

/**
 * A kafkajs stand-in for one topic: the consumer hands the records of its unpaused partitions
 * in turn from where each was sought, and after `rejoinAfter` records the group rebalances (a
 * monitor came or went): GROUP_JOIN again, then the rest of the batch fetched before it, as
 * kafkajs may still hand it, then records from where the read sought.
 */
function fakeKafka(partitions: number[][], rejoinAfter: number) {
  const logs = partitions.map((timestamps, partition) =>
    timestamps.map((timestamp, offset): Message => ({ offset: String(offset), timestamp: String(timestamp), value: Buffer.from(`p${partition}-${offset}`) })),
  );
  const joins: number[] = [];
  const kafka: KafkaJsMonitorLike = {
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchTopicOffsets: async () => logs.map((log, partition) => ({ partition, low: '0', high: String(log.length) })),
      fetchOffsets: async () => [],
    }),
    consumer: () => {
      const listeners = new Map<string, ((e: { payload: { error: unknown; restart: boolean } }) => void)[]>();
      const position = new Map<number, number>();
      const paused = new Set<number>();
      let stopped = false;
      const emit = (event: string) => {
        for (const listener of listeners.get(event) ?? []) listener({ payload: { error: undefined, restart: true } });
      };
      return {
        connect: async () => undefined,
        disconnect: async () => void (stopped = true),
        subscribe: async () => undefined,
        seek: ({ partition, offset }) => void position.set(partition, Number(offset)),
        pause: (topics) => topics.forEach((t) => t.partitions.forEach((p) => paused.add(p))),
        on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        events: { GROUP_JOIN: 'join' },
        async run({ eachMessage }) {
          emit('join');
          joins.push(0);
          void (async () => {
            let handed = 0;
            while (!stopped) {
              await new Promise((resolve) => setImmediate(resolve));
              for (const [partition, log] of logs.entries()) {
                const at = position.get(partition) ?? 0;
                if (stopped || paused.has(partition) || at >= log.length) continue;
                position.set(partition, at + 1);
                await eachMessage({ partition, message: log[at]! });
                if (++handed === rejoinAfter) {
                  const fetchedBefore = log.slice(at + 1, at + 3);
                  emit('join');
                  joins.push(handed);
                  for (const message of fetchedBefore) await eachMessage({ partition, message });
                }
              }
            }
          })();
        },
      };
    },
  };
  return { kafka, joins };
}

describe('a monitor read that another monitor joining or leaving the group interrupts', () => {
  it('reads every record of the audit log once, going on from where each partition got to', async () => {
    const { kafka, joins } = fakeKafka(
      [
        [1, 2, 3, 4, 5, 6],
        [1, 2, 3, 4],
      ],
      5,
    );
    const read = await kafkajsMonitorPort(kafka, 'orders.dlq-monitor', 2_000).readFrom!('orders.dlq.audit', new Map([[1, '1']]));
    expect({ rejoined: joins.length > 1, values: read.records.map((r) => r.value).sort(), complete: read.complete ?? true }).toEqual({
      rejoined: true,
      values: ['p0-0', 'p0-1', 'p0-2', 'p0-3', 'p0-4', 'p0-5', 'p1-1', 'p1-2', 'p1-3'],
      complete: true,
    });
  });

  it('finds the record at each offset asked for, not stopped by a rejoin between partitions', async () => {
    const { kafka, joins } = fakeKafka(
      [
        [10, 11, 12],
        [20, 21, 22],
      ],
      2,
    );
    const found = await kafkajsMonitorPort(kafka, 'orders.dlq-monitor', 2_000).timestampsAt('orders.dlq', [
      { partition: 0, offset: '2' },
      { partition: 1, offset: '1' },
    ]);
    expect({ rejoined: joins.length > 1, found: [...found].sort(([a], [b]) => a - b) }).toEqual({
      rejoined: true,
      found: [
        [0, 12],
        [1, 21],
      ],
    });
  });

  it('reads the marks of the records asked for, each once, up to the last offset asked', async () => {
    const { kafka, joins } = fakeKafka(
      [
        [1, 2, 3, 4, 5],
        [6, 7, 8],
      ],
      3,
    );
    const read = await kafkajsMonitorPort(kafka, 'orders.dlq-monitor', 2_000).marksAt!(
      'orders.dlq',
      new Map([
        [0, { from: 1n, to: 3n }],
        [1, { from: 0n, to: 2n }],
      ]),
    );
    expect({ rejoined: joins.length > 1, marks: [...read.marks].map(([p, m]) => [p, [...m]]), readTo: [...read.readTo] }).toEqual({
      rejoined: true,
      marks: [
        [0, [[1n, '2/-1/4'], [2n, '3/-1/4'], [3n, '4/-1/4']]],
        [1, [[0n, '6/-1/4'], [1n, '7/-1/4'], [2n, '8/-1/4']]],
      ],
      readTo: [
        [0, 4n],
        [1, 3n],
      ],
    });
  });
});
