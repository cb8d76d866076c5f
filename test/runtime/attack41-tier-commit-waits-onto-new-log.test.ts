import { KafkaJSProtocolError } from 'kafkajs';
import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/*
 * Class: a commit made stale while it waited, sent again as it was (lost).
 *
 * Scenario: park-by-key on kafkajs. k:a fails once on the main topic: its copy is the 1m tier's
 * offset 0 and k is held. A minute later the copy runs and succeeds: the release commits the
 * main state (accepted), then the tier's commit (offset 1), which the coordinator refuses with
 * GROUP_LOAD_IN_PROGRESS (a coordinator loading its offsets) for a few seconds. While it is
 * refused, the tier topic is deleted and created again with no rebalance (kafkajs reads it
 * again from 0: readFromEarliest; Kafka dropped the group's commit of it) and x:b fails on the
 * main topic: its copy is the new tier log's offset 0, due a minute later. The refusals end, the
 * consumer is restarted before x:b's copy is due.
 *
 * Seen (on d25af66): the waited-out tier commit lands after the recreate: the group's commit of
 * the new tier log is at 1, past x:b's copy; the restarted consumer reads the tier from 1, and
 * x:b's retry never runs (lost). On d25af66^ the refused tier commit was owed (owe(), over
 * the commit this member last stored) and the operation failed; payOwedTierCommits found the
 * group's commit gone (the recreate) and forgave the debt, so nothing landed on the new log and
 * x:b's copy ran after the restart.
 *
 * Code at fault: src/runtime/key-parking.ts commit(): the tier commits go through
 * commitState(..., parking) and so untilAccepted, which re-sends them unchanged for up to 30 s
 * with no check that the tier log is still the one they were made for (stillOurs only checks the
 * main partition's state); the debt path (owe/payOwedTierCommits) had that check.
 *
 * Suggested fix: do not wait out the tier commits in place (pass no owner: they are owed, as
 * before, and paid only over the commit they were owed over), or, before each re-send, check the
 * group's commit of each tier partition is still the one the commit was made over (as
 * payOwedTierCommits does).
 *
 * Caused by the change (d25af66).
 *
 * Fixed: only the main state's commit is waited out (key-parking.ts commit()); a refused tier
 * commit is owed as before, and its payment checks the group's commit first.
 */
jest.setTimeout(60_000);

const loading = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is loading offsets', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string)); // as the kafkajs adapter marks it

describe('park-by-key, a tier commit waited out while the tier is created again', () => {
  it('does not put the old tier log\u2019s offset on the new log', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.failOnce.add('k:a');
    w.failOnce.add('x:b');
    const commit = w.broker.commit.bind(w.broker);
    let refusing = false;
    let refused = 0;
    w.broker.commit = (groupId, offsets) => {
      if (!refusing && refused === 0 && offsets.some((o) => o.topic === tier1m!.topic && o.offset === '1')) refusing = true;
      if (refusing && offsets.some((o) => o.topic === tier1m!.topic)) {
        refused++;
        if (refused === 2) {
          w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
          w.broker.readFromEarliest(tier1m!.topic, 0);
          w.produce('x', 'b');
        }
        if (refused === 6) refusing = false;
        else throw loading();
      }
      commit(groupId, offsets);
    };
    w.produce('k', 'a');
    const first = await w.start();
    // Until x:b's copy waits in the new tier log (its main record's state committed), well before it is due.
    await w.broker.run({ stopWhen: () => w.handled.includes('x:b FAIL') && w.events.filter((e) => e.type === 'waiting').length >= 2 });
    await first.stop();
    const committedTier = w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0);
    const second = await w.start();
    await w.broker.run({ until: T0 + 10 * 60_000 });
    await second.stop();
    // Seen on d25af66: the tier commit at 1 (the old log's) on the new log, and x:b ran only its failed main try.
    expect(committedTier).not.toBe(1); // Seen: 1
    expect(w.handled.filter((h) => h.startsWith('x:b'))).toEqual(['x:b FAIL', 'x:b']); // Seen: ['x:b FAIL']
  });
});
