import { HEADERS, PARK_STATE_HEADER } from '../../src/naming/headers';
import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/*
 * Park-by-key: a tier record no hold judges has its run named in the state (`%t.o=r`,
 * ran-unjudged.ts) until its tier commit is accepted. One run while the state had no room for
 * the name went with the name dropped: with its tier commit then refused in a rebalance, the
 * new generation read it again and ran it a second time, and a state stored in between could
 * have let a newer record of its key run first (ORDER). Found in session 42 with a copy written
 * under another state, which takes no hold and so never waited for room. Now such a record waits
 * for room for its name as one that needs room for a hold does.
 */
jest.setTimeout(60_000);

type World = ReturnType<typeof world>;

/** h:1 fails on the main topic and in the 1m tier: h is held, its retry in the 10m tier, the state about as large as `budget` lets it be. */
async function holdOneKeyAt(w: World, budget: number) {
  w.broker.throwReaction = 'kafkajs';
  w.produce('k', 'x0');
  w.failOnce.add('h:1');
  w.produce('h', '1');
  const retrying = await w.start({ parkingBudgetBytes: budget });
  await w.broker.run({ stopWhen: () => w.handled.includes('h:1 FAIL') });
  w.failOnce.add('h:1');
  await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'h:1 FAIL').length === 2 });
  return retrying;
}

/** A 1m copy of k's record at main offset 0, due now, written under a state that is not this one (a log gone since). */
function copyWrittenUnderAnotherState(w: World): number {
  return w.broker.append(tier1m!.topic, {
    key: Buffer.from('k'),
    value: Buffer.from('w'),
    partition: 0,
    headers: {
      [HEADERS.attempt]: '2',
      [HEADERS.dueAt]: String(w.clock.now()),
      [HEADERS.originalTopic]: consumer.mainTopic,
      [HEADERS.originalPartition]: '0',
      [HEADERS.originalOffset]: '0',
      [PARK_STATE_HEADER]: 'ZZZZZZZZ',
    },
  });
}

/** The first 1m commit after k:w ran, sent alone (the one that records its run), refused in a rebalance. */
function refuseItsTierCommitInARebalance(w: World): () => boolean {
  const commit = w.broker.commit.bind(w.broker);
  let refused = false;
  w.broker.commit = (group, offsets) => {
    if (!refused && w.handled.includes('k:w') && offsets.every((o) => o.topic === tier1m!.topic)) {
      refused = true;
      w.broker.rebalance(consumer.groups.main);
      throw Object.assign(new BrokerRefusedError('The group is rebalancing, so a rejoin is needed'), { type: 'REBALANCE_IN_PROGRESS', retriable: true });
    }
    commit(group, offsets);
  };
  return () => refused;
}

describe('park-by-key, a tier record no hold judges, the state near its budget', () => {
  // 50 to 54 bytes: h's hold fits, k:w's name beside it does not (h:1's state is 43 bytes, a name 11).
  it.each([50, 52, 54])('at a budget of %i bytes, waits for room for its name and runs once across a refused tier commit and a rebalance', async (budget) => {
    const w = world();
    const retrying = await holdOneKeyAt(w, budget);
    const refused = refuseItsTierCommitInARebalance(w);
    copyWrittenUnderAnotherState(w);
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    expect(refused()).toBe(true);
    // Seen before: k:x0, h:1 FAIL, h:1 FAIL, k:w, k:w, h:1 (the name dropped, the run lost with the refused commit).
    expect(w.handled).toEqual(['k:x0', 'h:1 FAIL', 'h:1 FAIL', 'h:1', 'k:w']);
  });

  it('with room for its name, runs at once, before the held key is released', async () => {
    const w = world();
    const retrying = await holdOneKeyAt(w, 80);
    copyWrittenUnderAnotherState(w);
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    expect(w.handled).toEqual(['k:x0', 'h:1 FAIL', 'h:1 FAIL', 'k:w', 'h:1']);
  });
});
