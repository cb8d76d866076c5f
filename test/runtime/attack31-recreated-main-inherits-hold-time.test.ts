import { consumer, T0, tier1m, world } from './park-by-key-world';

/*
 * Attack 31, finding: LOST (and ORDER), caused by c2e8068 (holdsSeen) with e502314's key.
 *
 * Class: a hold expiring EARLY: a holdsSeen entry outlives its hold and is inherited by a new,
 * unrelated hold with the same (key hash, offset, retry id).
 *
 * Scenario (kafkajs reaction, park-by-key, parkedHoldExpiryMs 600 s, no fault): k:a (main
 * offset 0) fails once, so k is held at offset 0 from T0 (holdsSeen `hash(k) 0 ` = T0); k:b is
 * parked behind it; the hold's tier record is deleted by retention, so the hold waits for its
 * expiry. At T0+570 s the main topic is deleted and created again with no rebalance (kafkajs
 * rejoins only when partition ids change; memory-broker recreateTopic + readFromEarliest): the
 * new log is read from 0, key-parking sees the move back, and begins a new state from nothing
 * (newLogs). Nothing clears holdsSeen (only forget() does, on a rebalance), and the new state's
 * first commits go through load()'s commitState, which does not prune it. k:c, the new log's
 * offset 0, fails once: hold(k, 0, no retry id) -> firstSeen() returns the OLD log's T0.
 *
 * Seen: the hold expires at T0+600 s, 30 s after it was taken (`hold-expired`, heldMs 600000),
 * before k:c's 1m retry is due; k:d runs first, then k:c's copy is skipped as a stale tier record:
 * handled = k:a FAIL, k:c FAIL, k:d. k:c never succeeds (LOST) and k:d ran ahead of it (ORDER).
 * Before c2e8068 (heldSince = now at hold()) the new hold ran its full 600 s.
 *
 * Code at fault: src/runtime/key-parking.ts firstSeen()/forgetHoldsSeen(): entries are keyed by
 * (hash, offset, retryId) only, with nothing naming the log or the state they were seen under,
 * and are pruned only after a state commit through commit(); a state begun from nothing (new
 * log, and likewise a lost state or a shed's commit, which go through commitState directly)
 * keeps every entry of the state it replaced.
 *
 * Fixed: holdsSeen keys each hold by its state's id too, a load that begins a state anew
 * forgets the partition's entries, and every stored state of p prunes them (sendCommits).
 *
 * Suggested fix: key holdsSeen by the state's id as well (a new log / lost state takes a new
 * id), or clear holdsSeen for the partition whenever a load begins a state from nothing
 * (takesId, newLog) and prune it after every state commit (load, shedOverBudget, stampTiers),
 * not only commit(); an entry older than the state's load should never date a hold taken
 * after the load.
 */
jest.setTimeout(60_000);

it('a hold taken on a main topic created again (no rebalance) is not dated by the old log\'s hold at the same key and offset', async () => {
  const w = world();
  const expiry = 600_000;
  w.failOnce.add('k:a');
  w.produce('k', 'a'); // old log 0: held from T0
  w.produce('k', 'b'); // old log 1: parked behind it
  const retrying = await w.start({ parkedHoldExpiryMs: expiry });
  await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked') });
  // The old hold's tier record never comes (tier retention took it): it waits for its expiry.
  w.broker.deleteRecordsBefore(tier1m!.topic, 0, w.broker.records(tier1m!.topic, 0).length);
  let due = false;
  w.clock.setTimer(T0 + expiry - 30_000 - w.clock.now(), () => (due = true));
  await w.broker.run({ stopWhen: () => due });
  // The main topic is deleted and created again; kafkajs reads it from 0 (no rebalance).
  w.broker.recreateTopic(consumer.mainTopic, { rebalance: false });
  w.broker.readFromEarliest(consumer.mainTopic, 0);
  w.failOnce.add('k:c');
  w.produce('k', 'c'); // new log 0: fails once, held (its 1m retry due a minute later)
  w.produce('k', 'd'); // new log 1: waits for k:c's retry
  await w.broker.run({ until: T0 + 3 * expiry });
  await retrying.stop();
  // Seen: ['k:d'] (k:c FAIL, the hold expired 30 s after it was taken, k:d ran, k:c's copy skipped as stale).
  expect(w.handled.filter((h) => h === 'k:c' || h === 'k:d')).toEqual(['k:c', 'k:d']);
});
