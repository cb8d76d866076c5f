import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (attack10). A main topic deleted and created again, then an offset reset of
 * the group on it (`kafka-consumer-groups --reset-offsets --to-earliest`, the usual step after
 * a topic is replaced, or any commit of p without metadata on the new log) makes the new log's
 * state take back the OLD log's id from the tiers' commits of p (3191bc3), so the old log's
 * retries are judged by the new log's holds and skipped as stale copies: lost (never handled,
 * not in the DLQ).
 *
 * Scenario: one member; k:a (old log, offset 0) fails into the 1m tier (k held; its copy and the
 * tiers' commits of p carry the state's id A). The member stops; the main topic is deleted and
 * created again (the group's commits of it go; the tiers' commits of p stay, naming A); the
 * operator resets the group's offsets of the main topic to the earliest (a commit of p at 0 with
 * empty metadata). A new record z:1 is produced; the member starts again and runs past k:a's
 * due time.
 *
 * Seen: the state loads as lost (`park-state-lost`, metadata 'none'), agreedStateId() finds A in
 * the tiers' commits and the new log's state takes it; k:a's copy (id A, original offset 0) is
 * then "this state's", k is not held, 0 is not below lostBefore (0): `stale-tier-record`,
 * committed unrun. handled: ['k:a FAIL', 'z:1']. Without the reset (checked: the same body with
 * the reset commit left out) the state begins from nothing with a new id and k:a runs.
 *
 * Regression of 3191bc3: at 3191bc3^ (checked with git archive, the tier-metadata expectation
 * left out) the body passes: the lost state took a new id and k:a ran as another state's retry.
 *
 * Code: src/runtime/key-parking.ts load(): `kept = lost === undefined ? undefined :
 * agreedStateId(tierCommitsOf(...))` takes any id the tiers' commits agree on, with nothing
 * that ties it to the main log the lost commit is of; src/runtime/tier-commit-state-id.ts
 * stores only the id. docs/runtime.md "When p's state is lost" says the tiers' commits stay
 * after "an offset reset of the main topic"; they stay after a recreation of it as well.
 *
 * Class: state recovered from a side store that outlives the thing it describes (the tiers'
 * commits outlive the main log), without a check that both describe the same log.
 *
 * Fix I'd make: tie the kept id to the main log: write beside it, in the tier commits, what the
 * main commit was when the id was stamped (the main topic's topic id where the client has it,
 * or the state's position/committed offset: a lost commit at an offset below the tiers' recorded
 * position is a moved-back log, not a reset to current), and take the id back only when the lost
 * commit matches (a reset to current/later offsets); else take a new id, as a state begun from
 * nothing does (and stamp it). At least: a lost commit at offset 0 below a stamped position > 0
 * takes a new id.
 */
describe('park-by-key, the main topic recreated and the group reset on it before the member starts again', () => {
  it.failing("runs the old log's retry (it carries the old log's id) instead of skipping it as this state's stale copy", async () => {
    const w = world();
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // old log, 0: fails into the 1m tier, k held
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.broker.records(tier1m!.topic, 0).length === 1 });
    await retrying.stop();
    const oldId = w.parkState().id;
    expect(oldId).toBeDefined();
    expect(w.broker.committedMetadata(consumer.groups.main, tier1m!.topic, 0)).toContain(`!${oldId}`);

    w.broker.recreateTopic(consumer.mainTopic); // the group's commits of the main topic go with the old log
    // The operator: kafka-consumer-groups --reset-offsets --to-earliest --topic <main> --execute
    w.broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '0', metadata: '' }]);
    w.produce('z', '1'); // new log, 0
    retrying = await w.start();
    await w.broker.run({ until: T0 + 10 * 60_000 }); // past k:a's 1m due time
    await retrying.stop();

    // Seen: the new log's state took the old log's id, and k:a's copy was skipped as stale.
    expect(w.parkState().id).not.toBe(oldId);
    expect(w.events.filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.handled).toContain('k:a'); // seen: ['k:a FAIL', 'z:1']
  });
});
