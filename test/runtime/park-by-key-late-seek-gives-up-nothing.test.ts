import { consumer, refuseOnce, seeksLate, world } from './park-by-key-world';

/*
 * A client that breaks the port's seek contract (port.ts seek): its seeks take effect late and
 * the records it fetched before them keep coming meanwhile. kafkajs and librdkafka do not (a
 * pending seek drops the partition's batch and fetch responses; a version barrier drops what
 * was fetched before), but nothing else proves a seek took effect. A parked record read again
 * after a failed operation (the load seeks back to it) then looks missing from the log: records
 * come past it. Giving it up on that evidence lost it; so did passing, on the same evidence,
 * the records a lost state had parked.
 */
jest.setTimeout(60_000);

describe.each(['kafkajs', 'confluent'] as const)('park-by-key (%s), a parked record read again through a seek the client applies late', (reaction) => {
  it('is run in its turn, not given up as deleted', async () => {
    const w = world();
    w.broker.throwReaction = reaction;
    seeksLate(w, consumer.mainTopic, 1_500);
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

describe.each(['kafkajs', 'confluent'] as const)('park-by-key (%s), records between an older state\u2019s position and the client\u2019s, sought back to through a seek the client applies late', (reaction) => {
  it('are read again from the position: the records the lost state had parked run in order', async () => {
    const w = world();
    w.broker.throwReaction = reaction;
    seeksLate(w, consumer.mainTopic, 1_500);
    for (let i = 0; i < 5; i++) w.produce(`x${i}`, 'v');
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // 5: fails once, k held
    w.produce('k', 'b'); // 6: parked
    w.produce('k', 'c'); // 7: parked
    for (let i = 8; i < 20; i++) w.produce(`x${i}`, 'v');
    const older: { offset?: number; metadata?: string } = {};
    const commit = w.broker.commit.bind(w.broker);
    let lost = false;
    w.broker.commit = (groupId, offsets) => {
      const main = offsets.find((o) => o.topic === consumer.mainTopic);
      if (main !== undefined && older.offset === undefined && main.offset === '5') Object.assign(older, { offset: 5, metadata: main.metadata });
      if (main !== undefined && !lost && w.handled.includes('x10:v')) {
        // A commit lost in an outage: the group's commit is an older state's (position 5, before k's hold and parked records), and this one is refused.
        lost = true;
        commit(groupId, [{ topic: consumer.mainTopic, partition: 0, offset: '5', metadata: older.metadata! }]);
        throw new Error('The coordinator is not available');
      }
      commit(groupId, offsets);
    };
    const retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await retrying.stop();
    expect(lost).toBe(true);
    expect(w.handled.filter((h) => h.startsWith('k:'))).toEqual(['k:a FAIL', 'k:a', 'k:b', 'k:c']);
  });
});
