import { HEADERS } from '../../src/naming/headers';
import { keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import { consumer, T0, tier1m, world } from './park-by-key-world';
import { springRetryTopicHeaders } from './spring-bytes';

/*
 * Park-by-key in a fleet with Spring Kafka services: a tier record Spring wrote carries its
 * main-topic offset in `kafka_original-offset` (binary), not in x-original-offset. The hold
 * check reads it as every other part of the runtime does (decodeOrigin), so a Spring record
 * is judged by its main offset like ours.
 */
describe('park-by-key judges a Spring-written tier record by its kafka_original-offset', () => {
  /** Main partition 0 with k:a (0) and k:b (1), committed with k held by the record at `heldAt`. */
  function heldWorld(heldAt: bigint, position: bigint) {
    const w = world();
    w.produce('k', 'a');
    w.produce('k', 'b');
    const state = { position, held: new Map([[keyHash(Buffer.from('k')), heldAt]]), parked: new Map<bigint, string>() };
    w.broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: String(position), metadata: parkStateMetadata(state) }]);
    return w;
  }
  const spring = (offset: number) =>
    springRetryTopicHeaders({ topic: consumer.mainTopic, partition: 0, offset, timestamp: T0, group: consumer.groups.main }, 2, T0);

  it("Spring's retry of the held record runs and releases its key: the key's parked record runs after it", async () => {
    const w = heldWorld(0n, 1n); // k:a in retry, k:b not read yet (parked when read)
    w.broker.append(tier1m!.topic, { key: Buffer.from('k'), value: Buffer.from('a-retry'), partition: 0, headers: spring(0) });
    const retrying = await w.start();
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['k:a-retry', 'k:b']);
  });

  it('a Spring copy of an older retry of the key is stale: it does not release the hold of the record in retry now', async () => {
    const w = heldWorld(1n, 2n); // k:b in retry
    w.broker.append(tier1m!.topic, { key: Buffer.from('k'), value: Buffer.from('a-old-copy'), partition: 0, headers: spring(0) });
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from('b-retry'),
      partition: 0,
      headers: { [HEADERS.attempt]: '2', [HEADERS.dueAt]: String(T0), [HEADERS.originalTopic]: consumer.mainTopic, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '1' },
    });
    const retrying = await w.start();
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['k:b-retry']);
  });
});
