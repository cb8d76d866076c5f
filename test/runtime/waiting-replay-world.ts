import type { ThrowReaction } from '../../src/simulate/memory-broker';
import type { OffsetCommit } from '../../src/runtime/port';
import { consumer, tier1m, world } from './park-by-key-world';

/*
 * The scene of attacks 25 to 27's owed tier commits: key k held in retry, a DLQ replay of k
 * waiting its turn at 1m offset 1; k's release runs the replay, stores the state, and then
 * commits the 1m tier past it (offset 2), the commit the tests refuse.
 */

type World = ReturnType<typeof world>;

/**
 * k:a fails on the main topic (offset 1, after k:x0 at 0, the replay's original) and in the 1m
 * tier, so k's retry goes on in the 10m tier; the replay k:w waits its turn at 1m offset 1.
 * Returns the running consumer.
 */
export async function replayWaitingBehindHeldKey(w: World, reaction: Exclude<ThrowReaction, 'fail'>) {
  const retrying = await keyHeldInSecondTier(w, reaction);
  w.replay('k', 'w', 0, 0);
  await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
  return retrying;
}

/** k:x0 runs, then k:a fails on the main topic (offset 1) and in the 1m tier: k is held while its retry goes on in the 10m tier. Returns the running consumer. */
export async function keyHeldInSecondTier(w: World, reaction: Exclude<ThrowReaction, 'fail'>) {
  w.broker.throwReaction = reaction;
  w.produce('k', 'x0');
  w.failOnce.add('k:a');
  w.produce('k', 'a');
  const retrying = await w.start();
  await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
  w.failOnce.add('k:a');
  await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
  return retrying;
}

/** Parks a newer record of k (main offset 2) behind its hold and the replay's turn. */
export async function parkNewerRecordOfKey(w: World): Promise<void> {
  w.produce('k', 'b');
  await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic) });
}

/**
 * The release's 1m commit past the replay (offset 2), sent once its state is stored: `refuse`
 * throws in its place, once. Says whether it came.
 */
export function refuseReleaseTierCommit(w: World, refuse: () => never): () => boolean {
  const commit = w.broker.commit.bind(w.broker);
  let refused = false;
  w.broker.commit = (g: string, offsets: OffsetCommit[]) => {
    if (!refused && offsets.some((o) => o.topic === tier1m!.topic && o.offset === '2')) {
      refused = true;
      refuse();
    }
    commit(g, offsets);
  };
  return () => refused;
}

/**
 * Two records of other keys fail on the main topic, their copies the (new) 1m log's offsets 0
 * and 1; the consumer restarts before they are due and runs an hour. Returns the group's commit
 * of the 1m tier before the restart.
 */
export async function newTierRecordsAcrossRestart(w: World, retrying: { stop(): Promise<void> }): Promise<number | undefined> {
  w.failOnce.add('n:1');
  w.failOnce.add('m:2');
  w.produce('n', '1');
  w.produce('m', '2');
  await w.broker.run({ stopWhen: () => w.broker.records(tier1m!.topic, 0).length === 2 });
  const committed = w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0);
  await retrying.stop();
  const again = await w.start();
  await w.broker.run({ until: w.clock.now() + 3_600_000 });
  await again.stop();
  return committed;
}
