/**
 * Review h140: the monitor's head read (kafkajsMonitorPort.timestampsAt) of a DLQ partition
 * whose first unhandled offset holds no record a consumer sees (a transactional DLQ producer's
 * aborted record and its abort marker, written after every record was handled) waits out its
 * whole timeout (15 s) at every poll: nothing is handed to eachMessage there, and unlike
 * readFrom and marksAt (this morning's END_BATCH_PROCESS `passed`), timestampsAt does not listen
 * for a fetch that went past the end without a record.
 *
 * Seen (fake below, timeout 2 s): timestampsAt resolves after 2,0xx ms with nothing for the
 * partition. On a cluster each poll of every monitor of the consumer takes 15 s longer, reports
 * "could not read the oldest unhandled record of ... in every partition" (monitor.ts), and keeps
 * the last oldest-record timestamp: if that was a record since handled, its age goes on growing
 * to KafkaDlqOldestMessageAge, and no krt dlq command clears it (inspect lists none; a replay
 * selecting nothing commits nothing, so the markers are never passed: docs/dlq-tools.md
 * "Transactional DLQs").
 *
 * Fixed: the monitor gives timestampsAt each partition's end; a partition read past it without a
 * record maps to null (no record there: no oldest DLQ record, lag seconds and overdue 0).
 * Code at fault: src/runtime/adapters/kafkajs-monitor.ts timestampsAt (readUntil without
 * `passed`), and monitor.ts, which has no answer for "no record from the head to the end".
 * Class: a read waiting on a timer for records that cannot come. Suggested fix: give
 * timestampsAt the partitions' ends and a `passed` that ends a partition once a fetch passed its
 * end (no oldest record there: the gauge is the other partitions', or removed), as readFrom does.
 */
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import type { KafkaJsMonitorLike } from '../../src/runtime/adapters/kafkajs-monitor';

/** One DLQ partition: a record at offset 0 (handled), then an aborted record and its marker at 1 and 2; the end is 3. */
function kafkaWithMarkersAtTheHead(): KafkaJsMonitorLike {
  return {
    admin: () => ({ connect: async () => undefined, disconnect: async () => undefined, fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: '3' }], fetchOffsets: async () => [] }),
    consumer: () => {
      const listeners = new Map<string, ((e: unknown) => void)[]>();
      let position = 0;
      let stopped = false;
      const emit = (event: string, payload: unknown) => (listeners.get(event) ?? []).forEach((l) => l({ payload }));
      return {
        connect: async () => undefined,
        disconnect: async () => void (stopped = true),
        subscribe: async () => undefined,
        seek: ({ offset }) => void (position = Number(offset)),
        pause: () => undefined,
        on: (event, listener) => void listeners.set(event, [...(listeners.get(event) ?? []), listener as (e: unknown) => void]),
        events: { GROUP_JOIN: 'join', CRASH: 'crash', END_BATCH_PROCESS: 'end-batch' },
        async run({ eachMessage }) {
          emit('join', {});
          void (async () => {
            while (!stopped) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              if (position === 0) {
                await eachMessage({ partition: 0, message: { offset: '0', timestamp: '1000', value: Buffer.from('r0') } });
                emit('end-batch', { topic: 'orders.dlq', partition: 0, batchSize: 1, firstOffset: '0', lastOffset: '0' });
                position = 1;
              } else if (position < 3) {
                // A fetch of the aborted record and the abort marker: no message, the batch's offsets only.
                emit('end-batch', { topic: 'orders.dlq', partition: 0, batchSize: 0, firstOffset: String(position), lastOffset: '2' });
                position = 3;
              }
            }
          })();
        },
      } as ReturnType<KafkaJsMonitorLike['consumer']>;
    },
  };
}

it('the head read of a partition whose first unhandled offset holds no record ends once the fetch passed its end', async () => {
  const port = kafkajsMonitorPort(kafkaWithMarkersAtTheHead(), 'orders.dlq-monitor', 2_000);
  const started = Date.now();
  // The monitor gives each partition's end with its head (monitor.ts, monitor-partition-lag.ts).
  const found = await port.timestampsAt('orders.dlq', [{ partition: 0, offset: '1', end: '3' }]);
  expect({ found: [...found], fast: Date.now() - started < 1_000 }).toEqual({ found: [[0, null]], fast: true });
});
