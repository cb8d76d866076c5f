import type { ConsumerPort, TopicPartitionOffset } from '../../src/runtime/port';
import { consumer, refuseOnce, world } from './park-by-key-world';
import type { World } from './park-by-key-world';

/*
 * A seek the client applies late: librdkafka's seek waits 1 s for the partition's fetcher and
 * then only logs a time-out (the Confluent client's seekInternal), while the seek still takes
 * effect when the fetcher gets to it; until then the records fetched before it keep coming. A
 * parked record read again after a failed operation (the load seeks back to it) then looks
 * missing from the log: records come past it. Giving it up on that evidence lost it.
 */
jest.setTimeout(60_000);

/** Every seek of the main topic takes effect `lateMs` after it was asked for. */
function seeksLate(w: World, lateMs: number): void {
  const port = w.broker.port.bind(w.broker);
  w.broker.port = () => {
    const p = port();
    return {
      ...p,
      consumer: (groupId, options) => {
        const c = p.consumer(groupId, options) as ConsumerPort;
        const seek = c.seek.bind(c);
        c.seek = (at: TopicPartitionOffset) => {
          if (at.topic !== consumer.mainTopic) return seek(at);
          w.clock.setTimer(lateMs, () => seek(at));
        };
        return c;
      },
    };
  };
}

describe.each(['kafkajs', 'confluent'] as const)('park-by-key (%s), a parked record read again through a seek the client applies late', (reaction) => {
  it('is run in its turn, not given up as deleted', async () => {
    const w = world();
    w.broker.throwReaction = reaction;
    seeksLate(w, 1_500);
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('k', 'b');
    for (let i = 0; i < 20; i++) w.produce(`x${i}`, 'v');
    // One main commit refused after k:b parked: the operation fails, the state is read again, and the load seeks back to k:b.
    refuseOnce(w.broker, (o) => o.topic === consumer.mainTopic && Number(o.offset) >= 1 && w.handled.includes('x3:v'));
    const retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await retrying.stop();
    expect(w.events.filter((e) => e.type === 'parked-records-deleted')).toEqual([]);
    expect(w.handled.filter((h) => h.startsWith('k:'))).toEqual(['k:a FAIL', 'k:a', 'k:b']);
  });
});
