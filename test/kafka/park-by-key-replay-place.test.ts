import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { HEADERS } from '../../src/naming/headers';
import type { ConsumedRecord } from '../../src/runtime/router';
import { eventually } from '../helpers/eventually';
import { kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { CLIENTS, eachClient } from './clients';
import { consumersOn, parkByKeyConsumer as parkByKeyScene } from './park-by-key-scene';

/*
 * Attack 29 on the real broker: a DLQ replay that waits its key's turn keeps its place ahead of
 * a record of its key written after it came due, across a restart. The place by position lives
 * in memory; the new process tells it by the records' own timestamps (tier-turns.ts
 * runsBeforeParked), which here the broker stores as the producers wrote them.
 */
jest.setTimeout(180_000);

/** Two tiers (3 s, 15 s), one partition. */
const parkByKeyConsumer = () => parkByKeyScene('pbk-place', [3, 15], 1);

/** What `krt dlq replay`'s default route writes: into the first tier, due now, naming main offset `original`. */
async function replayIntoFirstTier(d: ConsumerDescriptor, key: string, value: string, original: number): Promise<void> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  try {
    await producer.send({
      topic: d.tiers[0]!.topic,
      acks: -1,
      messages: [{
        key,
        value,
        partition: 0,
        headers: {
          [HEADERS.attempt]: '2',
          [HEADERS.dueAt]: String(Date.now()),
          [HEADERS.originalTopic]: d.mainTopic,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: String(original),
          [HEADERS.replayedFromDlq]: `${d.dlqTopic}/0:0`,
        },
      }],
    });
  } finally {
    await producer.disconnect();
  }
}

const carriers = CLIENTS.filter((c) => c.orderings.includes('park-by-key'));

eachClient('park-by-key: a waiting replay\'s place across a restart', { clients: carriers, consumerConfig: { sessionTimeout: 10_000 } }, (port) => {
  const consumers = consumersOn(port);

  it('runs the replay before the record of its key written after it came due, though a restart came between', async () => {
    const d = await parkByKeyConsumer();
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    /** k:a fails on the main topic and in the 3 s tier: k stays held while its copy waits in the 15 s tier. */
    let failuresLeft = 2;
    const handler = async (record: ConsumedRecord) => {
      const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
      if (label === 'k:a' && failuresLeft > 0) {
        failuresLeft--;
        handled.push(`${label} FAIL`);
        throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
      }
      handled.push(label);
    };
    const start = () => consumers.start(d, handler, { onEvent: (e) => events.push(e) });
    const parked = (topic: string, value: string) => events.some((e) => e.type === 'parked' && e.record.topic === topic && e.record.message.value?.toString() === value);

    const first = await start();
    await produceAsAdmin(d.mainTopic, [
      { key: 'k', value: 'x0', partition: 0 },
      { key: 'k', value: 'a', partition: 0 },
    ]);
    await eventually('k:a failed on the main topic and in the 3 s tier', () => (handled.filter((h) => h === 'k:a FAIL').length === 2 ? true : undefined), 60_000);
    await replayIntoFirstTier(d, 'k', 'w', 0);
    await eventually('the replay waits its key\'s turn', () => (parked(d.tiers[0]!.topic, 'w') ? true : undefined), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // k:b is written a second after the replay came due
    await produceAsAdmin(d.mainTopic, [{ key: 'k', value: 'b', partition: 0 }]);
    await eventually('k:b is parked behind k', () => (parked(d.mainTopic, 'b') ? true : undefined), 30_000);
    expect(handled).not.toContain('k:a'); // the restart comes while k is still held
    await consumers.stop(first);

    await start();
    await eventually('k:b handled', () => (handled.includes('k:b') ? true : undefined), 90_000);
    expect(handled).toEqual(['k:x0', 'k:a FAIL', 'k:a FAIL', 'k:a', 'k:w', 'k:b']);
  });
});
