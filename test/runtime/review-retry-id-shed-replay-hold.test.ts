import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by session 37's review of the retry ids (older than them): a LOST record. A replayed
 * record's hold at or past the committed offset (a parked record below it) was dropped by a shed
 * ("its record is read again": not a replay's) or lost with the state (its id taken back from the
 * tiers), and its copy judged stale. Fixed: once a state was lost or gave up holds, a copy carrying
 * a retry id its key's hold does not have runs unjudged (tier-copy-judgement.ts unproven), and a shed that
 * drops such a hold sets its mark.
 */
jest.setTimeout(60_000);

/** Key A holds from the 10m tier with A:a2 parked (committed offset 1); a replay of key C naming offset 2 fails on (hold C@2=r). */
async function replayHeldPastTheCommittedOffset() {
  const w = world();
  w.broker.throwReaction = 'kafkajs';
  w.alwaysFail.add('A:a1');
  w.produce('A', 'a1'); // 0: fails on main and in 1m: holds A@0 from the 10m tier
  w.produce('A', 'a2'); // 1: parked behind it: the committed offset is 1
  w.produce('B', 'b'); // 2
  w.produce('B', 'b2'); // 3
  const retrying = await w.start();
  await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'A:a1 FAIL').length === 2 });
  w.alwaysFail.delete('A:a1');
  // `krt dlq replay` of a DLQ record of key C naming offset 2 (an old log's record, say).
  w.failOnce.add('C:r');
  w.replay('C', 'r', 2, 9);
  await w.broker.run({ stopWhen: () => w.handled.includes('C:r FAIL') && w.broker.records(consumer.tiers[1]!.topic, 0).length > 1 });
  return { w, retrying };
}

describe('park-by-key retry ids (session 37 review): a replay\'s hold at or past the committed offset', () => {
  it('(shed) its 10m copy runs after the broker\'s metadata limit is lowered under the state', async () => {
    const { w, retrying } = await replayHeldPastTheCommittedOffset();
    expect(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0)).toContain('@2=');
    w.broker.metadataMaxBytes = 60; // the stored state (~68 bytes) no longer fits; A's hold alone does
    w.produce('D', 'd');
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    expect(w.events.filter((e) => e.type === 'park-state-shed').length).toBeGreaterThan(0); // the state was shed
    expect(w.handled).toContain('C:r');
  });

  it('(lost state, its id kept from the tiers) its 10m copy runs', async () => {
    const { w, retrying } = await replayHeldPastTheCommittedOffset();
    await retrying.stop();
    w.loseState('trailing bytes');
    const second = await w.start();
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await second.stop();
    expect(w.events.filter((e) => e.type === 'park-state-lost').length).toBeGreaterThan(0); // the state was lost
    expect(w.handled).toContain('C:r');
  });
});
