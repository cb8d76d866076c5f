import { BIG } from './held-main-world';
import type { HeldMainWorld } from './held-main-world';

/*
 * The stages the tests of a main topic created again while a record is held tell their
 * scenarios with (attacks 15 to 17). Each test keeps its own assertions of what was seen.
 */

/** a at 0 runs; big at 1 fails and, no copy of it fitting its tier or the DLQ, is held. */
export async function aRunsBigHeld(world: HeldMainWorld): Promise<void> {
  world.produce('a', 'a');
  world.produce(BIG); // fits the main topic, no copy fits
  await world.start();
  await world.runFor(60_000);
  expect({ held: world.count('publish-held'), ran: world.succeeded }).toEqual({ held: 1, ran: ['a'] });
}

/** Four records land in the new log: n0 to n3, at its offsets 0 to 3. */
function newLogRecords(world: HeldMainWorld): void {
  for (let i = 0; i < 4; i++) world.produce(`n${i}`, `n${i}`);
}

/**
 * The main topic is created again (no rebalance), four records land in its new log, the
 * operator raises the DLQ's limit; then a restart.
 */
export async function newLogThenLimitRaised(world: HeldMainWorld): Promise<void> {
  world.recreateMainTopic();
  newLogRecords(world);
  world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
  await world.runFor(300_000);
  await world.restart(); // a restart reads the new log from its commit
}

/**
 * The main topic is created again (no rebalance), the operator raises the DLQ's limit before
 * any record lands in the new log, and big's copy goes out; then four records land and a
 * deploy (or any rebalance) reads the new log from the group's commit. Returns that commit as
 * it was before the records landed.
 */
export async function limitRaisedBeforeNewLogHasRecords(world: HeldMainWorld): Promise<number | undefined> {
  world.recreateMainTopic();
  world.maxMessageBytes = 4_000;
  await world.runFor(60_000);
  expect(world.count('routed')).toBe(1); // big's copy went out
  const committedOnNewLog = world.committed();
  newLogRecords(world);
  await world.restart();
  return committedOnNewLog;
}
