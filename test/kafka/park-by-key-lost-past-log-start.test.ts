import type { RetryEvent } from '../../src/runtime/events';
import { eventually } from '../helpers/eventually';
import { expireBelow, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { CLIENTS, eachClient } from './clients';
import { consumersOn, parkByKeyConsumer, recorder } from './park-by-key-scene';

/*
 * Review 52's class on the real broker: a park-by-key state lost (the group's offsets reset,
 * which commits no metadata) while retention has deleted main records past the commit. One of
 * those records had failed into a tier: its tier copy is all that is left of it. The lost state
 * marks the loss at the log start (parking-log-start.ts lostMarkOf), so the copy runs unjudged;
 * marked at the commit, the copy was judged by the hold "as its main record is read again" and
 * skipped as stale: the record lost.
 */
jest.setTimeout(180_000);

const carriers = CLIENTS.filter((c) => c.orderings.includes('park-by-key'));

eachClient('park-by-key: a state lost past the main partition\'s log start', { clients: carriers, consumerConfig: { sessionTimeout: 10_000 } }, (port) => {
  const consumers = consumersOn(port);

  it('runs the tier copy of a record retention deleted past the reset commit', async () => {
    // One tier of 10 s: the copies wait there through the restart.
    const d = await parkByKeyConsumer('pbk-lost', [10], 1);
    const events: RetryEvent[] = [];
    const { handled, handler } = recorder(new Set(['k:a', 'z:c']));
    const start = () => consumers.start(d, handler, { onEvent: (e) => events.push(e) });

    const first = await start();
    // k:a fails and holds k; k:b parks behind it (the commit stays at 1); z:c fails into the tier.
    await produceAsAdmin(d.mainTopic, [
      { key: 'k', value: 'a', partition: 0 },
      { key: 'k', value: 'b', partition: 0 },
      { key: 'z', value: 'c', partition: 0 },
    ]);
    await eventually('z:c failed into the 10 s tier', () => (handled.includes('z:c FAIL') && events.some((e) => e.type === 'parked') ? true : undefined), 60_000);
    await consumers.stop(first);
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
