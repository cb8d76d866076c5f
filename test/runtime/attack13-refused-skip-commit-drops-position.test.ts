import { HEADERS } from '../../src/naming/headers';
import { decodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { heldReplaysWorld } from './held-replays-world';
import { consumer, T0, tier1m } from './park-by-key-world';

/**
 * Found by attack 13 (duplicates past the bound; no record lost), against e66afe8 ("keeps a
 * tier position through its skips").
 *
 * Scenario: as attack12-position-lost-once-anchor-runs: k's replay waits its turn at the head
 * of the 1m tier with 1,600 replays of free keys done behind it; k's release commits the main
 * state and its tier commit is refused once, so the tier stays committed at k's replay with
 * the kept position. A rebalance reads the tier again: k's replay runs, and the records behind
 * it are skipped one by one, the commit kept on the last one skipped (`^t*`). Then ONE of
 * those skip commits is refused (the coordinator moving; no rebalance, no crash); or, the
 * same, the state commit of a main record of the partition (a new record of a free key) is.
 *
 * Seen: the failed operation drops the partition's parking; the client delivers the same
 * record again (kafkajs retries it, the Confluent client seeks back to it; after a main
 * record's failure the tier simply goes on with its next record), and the parking
 * loaded anew reads the kept position from the last accepted commit, the anchor one record
 * back. The first record it reads is the refused one, not the anchor, so doneBeforeLoad finds
 * the position unverified and drops it: every replay not yet skipped runs again (about 1,590)
 * after three incidents (two refused commits, one rebalance), whose bound is 3 x (500 + 10):
 * 1,597 with kafkajs's reaction to the throw, 1,597 with the Confluent client's, 1,597 after
 * the main record's refused commit.
 *
 * Code at fault: src/runtime/key-parking.ts doneBeforeLoad: a position is only believed once
 * the record at `from` is read under the loaded parking (`handled.verified`), and load() builds
 * a fresh `tierHandled` and `tierRead` after any failed operation, while the client is not
 * sought back to the commit, so the anchor is never read again within the generation.
 *
 * Class: a durable position whose proof (reading its anchor) is only repeated on a rebalance,
 * while it is also thrown away on every failed operation.
 *
 * Fixed: the generation's tier turns keep the last anchor it read or committed per tier
 * partition (tier-turns.ts anchored), and a state loaded again in the same generation believes a
 * position anchored there without reading it again (key-parking.ts tierHandledOf).
 */
jest.setTimeout(120_000);

const REPLAYS = 1_600;


/** The skips behind a kept position, and one refused commit during them: a skip's own tier commit, or a main record's state commit of the same partition. */
async function skipsMeetARefusal(during: 'a skip' | 'a main record') {
  const w = heldReplaysWorld();
  w.broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('a'), partition: 0 });
  const retrying = await w.start();
  await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
  const template = w.broker.records(tier1m!.topic, 0)[0]!;
  const replay = (key: string, value: string, original: number) =>
    w.broker.append(tier1m!.topic, {
      key: Buffer.from(key),
      value: Buffer.from(value),
      partition: 0,
      headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(T0) },
    });
  replay('k', 'bag', 999); // waits its turn behind k's hold
  const waitingAt = w.broker.records(tier1m!.topic, 0).length - 1;
  for (let i = 1; i <= REPLAYS; i++) replay(`r${i}`, 'rep', 1_000 + i);
  const runsOfReplays = () => w.handled.filter((h) => h.startsWith('r')).length;
  await w.broker.run({ maxSteps: 50_000, stopWhen: () => runsOfReplays() === REPLAYS });
  expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(waitingAt);

  // k's release commits the main state; the tier commits after it are refused once.
  const commit = w.broker.commit.bind(w.broker);
  let refuseAbove: number | undefined = waitingAt;
  let refuseMain = false;
  let refusals = 0;
  w.broker.commit = (groupId, offsets) => {
    if (refuseMain && offsets.some((o) => o.topic === consumer.mainTopic)) {
      refuseMain = false;
      refusals++;
      throw new BrokerRefusedError('The coordinator is not available');
    }
    if (refuseAbove !== undefined && offsets.some((o) => o.topic === tier1m!.topic && Number(o.offset) > refuseAbove!)) {
      refuseAbove = undefined;
      refusals++;
      throw new BrokerRefusedError('The coordinator is not available');
    }
    commit(groupId, offsets);
  };
  await w.broker.run({ until: w.clock.now() + 3 * 3_600_000, stopWhen: () => refusals === 1 && w.handled.includes('k:bag') });
  await w.broker.run({ until: w.clock.now() + 1_000 });
  expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(waitingAt);

  // A deploy: k's replay runs at once (k is free), and the records behind it are skipped.
  w.broker.rebalance(consumer.groups.main);
  await w.broker.run({ stopWhen: () => (w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0) ?? 0) >= waitingAt + 3 });
  expect(runsOfReplays()).toBe(REPLAYS);
  const at = w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)!;
  expect(decodeTierCommit(BigInt(at), w.broker.committedMetadata(consumer.groups.main, tier1m!.topic, 0))).toEqual(expect.objectContaining({ firstDone: true, handledBelow: BigInt(waitingAt + 1 + REPLAYS) }));
  // One commit is refused: no rebalance, no crash.
  if (during === 'a skip') refuseAbove = at;
  else {
    refuseMain = true;
    w.broker.append(consumer.mainTopic, { key: Buffer.from('m'), value: Buffer.from('x'), partition: 0 });
  }
  await w.broker.run({ maxSteps: 50_000, until: w.clock.now() + 60_000 });
  await retrying.stop();
  expect(refusals).toBe(2);
  return runsOfReplays() - REPLAYS;
}

describe('park-by-key, a kept tier position whose skips meet one refused commit', () => {
  // Bound for three incidents (two refused commits, one rebalance): 3 x (500 + 10).
  it('keeps the position after a skip\'s refused commit, so the records behind it are not run again past the bound', async () => {
    expect(await skipsMeetARefusal('a skip')).toBeLessThanOrEqual(3 * (500 + 10)); // seen: 1,597
  });

  it('keeps the position after a refused commit of a main record of the partition, so the records behind it are not run again past the bound', async () => {
    expect(await skipsMeetARefusal('a main record')).toBeLessThanOrEqual(3 * (500 + 10)); // seen: 1,597
  });
});
