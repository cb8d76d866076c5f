import { consumer, world } from './park-by-key-world';
import { readingAsKafkajsAdapter } from './reading-as-kafkajs-adapter';

/**
 * A main record parked behind its key's hold is read again from the main topic once the key is
 * free (after a restart nothing of it is in memory). Retention can delete it first: a consumer
 * that lags close to the main topic's retention (back from days down) parks records retention
 * is about to take. Kafka has lost those records; what the runtime must not do is wait for them.
 */
describe('park-by-key: retention deletes parked records before they are read again', () => {
  it('gives up the deleted parked records, says so, and runs the key\'s later records; nothing waits for good', async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // fails: k held for its 1m retry
    w.produce('k', 'b'); // parked behind the hold
    w.produce('k', 'c'); // parked behind the hold
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.events.filter((e) => e.type === 'parked').length === 2 });
    await retrying.stop(); // a restart: the parked records are read again from the main topic
    expect(w.parkState().parked.size).toBe(2);

    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 3); // retention takes offsets 0 to 2
    w.produce('k', 'd');
    w.produce('x', 'e');
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await retrying.stop();

    expect(w.handled).toEqual(expect.arrayContaining(['k:a FAIL', 'k:a', 'x:e', 'k:d']));
    expect(w.handled).not.toContain('k:b');
    expect(w.parkState().parked.size).toBe(0);
    expect(w.parkState().held.size).toBe(0);
    expect(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(5);
    expect(w.events.filter((e) => e.type === 'parked-records-deleted')).toHaveLength(1);
  });

  // The memory broker's port answers the group's commit itself; the kafkajs adapter reads it
  // through its offsets reader, which once read -2 as no commit (attack 40).
  it.each([
    ['the memory broker\'s own answer', () => {}],
    ['the kafkajs adapter\'s reader', readingAsKafkajsAdapter],
  ])('on kafkajs, whose answer to a fetch below the log start commits -2 without metadata, takes the state for lost: the retry and the newer records run, none is skipped (the commit read by %s)', async (_, reading) => {
    const w = world();
    reading(w.broker);
    w.broker.outOfRangeCommitsEarliest = true;
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('k', 'b');
    w.produce('k', 'c');
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.events.filter((e) => e.type === 'parked').length === 2 });
    await retrying.stop();

    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 3);
    w.produce('k', 'd');
    w.produce('x', 'e');
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await retrying.stop();

    expect(w.events.filter((e) => e.type === 'park-state-lost')).toEqual([expect.objectContaining({ partition: 0, offset: '3' })]);
    expect(w.handled).toEqual(expect.arrayContaining(['k:a FAIL', 'k:a', 'x:e', 'k:d']));
    expect(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(5);
  });
});
