import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, expireBelow, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { CLIENTS, eachClient } from './clients';

/*
 * Review 52's class on the real broker: a park-by-key state lost (the group's offsets reset,
 * which commits no metadata) while retention has deleted main records past the commit. One of
 * those records had failed into a tier: its tier copy is all that is left of it. The lost state
 * marks the loss at the log start (parking-log-start.ts lostMarkOf), so the copy runs unjudged;
 * marked at the commit, the copy was judged by the hold "as its main record is read again" and
 * skipped as stale: the record lost.
 */
jest.setTimeout(180_000);

/** One tier of 10 s, read by the main group, as park-by-key needs. */
async function parkByKeyConsumer(): Promise<ConsumerDescriptor> {
  const d = testDescriptor('pbk-lost', [10]);
  const descriptor: ConsumerDescriptor = { ...d, ordering: 'park-by-key', groups: { ...d.groups, retry: d.groups.main } };
  await createTopicsOf(descriptor, 1);
  return descriptor;
}

const carriers = CLIENTS.filter((c) => c.orderings.includes('park-by-key'));

eachClient('park-by-key: a state lost past the main partition\'s log start', { clients: carriers, consumerConfig: { sessionTimeout: 10_000 } }, (port) => {
  const running: RetryingConsumer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });

  it('runs the tier copy of a record retention deleted past the reset commit', async () => {
    const d = await parkByKeyConsumer();
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    const failOnce = new Set(['k:a', 'z:c']);
    const handler = async (record: ConsumedRecord) => {
      const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
      if (failOnce.delete(label)) {
        handled.push(`${label} FAIL`);
        throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
      }
      handled.push(label);
    };
    const start = async () => {
      const consumer = createRetryingConsumer(d, { kafka: port(), handler, onEvent: (e) => events.push(e) });
      running.push(consumer);
      await consumer.start();
      return consumer;
    };

    const first = await start();
    // k:a fails and holds k; k:b parks behind it (the commit stays at 1); z:c fails into the tier.
    await produceAsAdmin(d.mainTopic, [
      { key: 'k', value: 'a', partition: 0 },
      { key: 'k', value: 'b', partition: 0 },
      { key: 'z', value: 'c', partition: 0 },
    ]);
    await eventually('z:c failed into the 10 s tier', () => (handled.includes('z:c FAIL') && events.some((e) => e.type === 'parked') ? true : undefined), 60_000);
    await first.stop();
    running.splice(running.indexOf(first), 1);
    expect(handled).toEqual(['k:a FAIL', 'z:c FAIL']);

    // The state lost (offsets reset, no metadata) at 1, and retention past it: the log starts at 3.
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await admin.setOffsets({ groupId: d.groups.main, topic: d.mainTopic, partitions: [{ partition: 0, offset: '1' }] });
      await expireBelow(admin, d.mainTopic, 0, 3);
    } finally {
      await admin.disconnect();
    }

    await start();
    await eventually('z:c handled from its tier copy', () => (handled.includes('z:c') ? true : undefined), 60_000);
    const lost = events.filter((e) => e.type === 'park-state-lost');
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((e) => e.type === 'park-state-lost' && e.offset === '3')).toBe(true);
    expect(events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
  });
});
