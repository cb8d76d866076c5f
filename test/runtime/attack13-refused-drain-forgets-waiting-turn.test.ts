import { HEADERS } from '../../src/naming/headers';
import { consumer, refuseOnce, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack 13 (a key run out of order; no record lost), next to 8ce76a1 ("tier turns
 * record how far a tier partition is handled only once the broker accepts the commit").
 *
 * Scenario: key k's record k:a fails twice (k held, its copy in the 10m tier). A DLQ record of
 * k is replayed into the 1m tier, due at once: k is held, so it waits its turn. A newer record of
 * k, k:b, parks behind the hold. k:a's retry succeeds: the release drains k's queue, and the
 * replay's turn comes first; it fails once more, so its copy goes to the 10m tier and it holds
 * k (k:b waits for that copy). The commit of that operation (the main state with the new hold,
 * then the tier offsets) is refused once at the main state (the coordinator moving).
 *
 * Seen: the failed operation drops the state; the client delivers k:a's tier record again, it
 * runs again and releases k (the stored state still holds k for it), but the replay is no
 * longer in the generation's turns (drain() called turns.done() before the commit was
 * accepted) and the client is past it, so it is neither run again nor holds k: k:b runs, and
 * ten minutes later the replay's 10m copy runs after it (`k:w` after `k:b`).
 *
 * Code at fault: src/runtime/key-parking.ts drain(): `turns.done(partition, turn)` as soon as
 * the waiting record ran, before commit() stores the state that holds its key. 8ce76a1 made
 * turns.accepted() wait for the broker for how far the partition is handled, but the waiting
 * queue itself is still emptied on a run whose state the broker refused.
 *
 * Before 9e5b7b8 (at d4de591) the same case LOST the replay: its 10m copy, no longer held
 * for, was skipped as a stale copy (`stale-tier-record`); the replay mark on the copy now
 * makes it run, after k:b. The cause, the waiting queue emptied before the commit, is older.
 *
 * Class: in-memory progress recorded before the durable write that covers it (as 8ce76a1's
 * doneUpTo, for the queue of waiting records).
 *
 * Fixed: a record a drain ran stays restorable until its operation's commit is accepted
 * (tier-turns.ts settled/restore): the failed operation puts it back first of its key, and
 * the next load drains free keys' turns, so it runs again in turn and takes its hold.
 */
jest.setTimeout(60_000);

describe('park-by-key, a waiting replay whose turn ran in a release the broker refused to store', () => {
  it('still holds its key for its next copy, so a newer parked record never runs before it', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.produce('k', 'x0'); // main offset 0: the replay's original, below the position
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    w.failOnce.add('k:a'); // its 1m copy fails too: k's retry goes on in the 10m tier
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    w.failOnce.add('k:w');
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from('w'),
      partition: 0,
      headers: {
        [HEADERS.attempt]: '1',
        [HEADERS.dueAt]: String(w.clock.now()),
        [HEADERS.originalTopic]: consumer.mainTopic,
        [HEADERS.originalPartition]: '0',
        [HEADERS.originalOffset]: '0',
        [HEADERS.replayedFromDlq]: 'billing.dlq/0:0',
      },
    });
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
    w.produce('k', 'b');
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic) });
    // The release's commit is refused once at the main state, after the replay's turn ran and failed on.
    refuseOnce(w.broker, (o) => o.topic === consumer.mainTopic && w.handled.includes('k:w FAIL'));
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    // Seen: k:x0, k:a FAIL, k:a FAIL, k:a, k:w FAIL, k:a (run again), k:b, k:w (the 10m copy).
    const ofK = w.handled.filter((h) => h.startsWith('k:'));
    expect(ofK).toContain('k:w'); // the replay succeeds in the end (at d4de591: its copy was skipped as stale, lost)
    expect(ofK.indexOf('k:b')).toBeGreaterThan(ofK.lastIndexOf('k:w'));
  });
});
