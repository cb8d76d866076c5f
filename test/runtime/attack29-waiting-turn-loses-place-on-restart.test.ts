import { consumer, world } from './park-by-key-world';
import { parkNewerRecordOfKey, replayWaitingBehindHeldKey } from './waiting-replay-world';

/**
 * Fixed (session 53): a replay's turn keeps its place ahead of its key's records written after it
 * came due, across a restart or a rebalance. The waiting record's place (`behind`, the main
 * partition's position when it came due) lives in memory only; read again in a new generation
 * it took the position then, past records parked after it came due. A waiting record now also
 * keeps its `x-due-at`, and a parked record of its key written after that (by its timestamp)
 * runs after it in any generation (tier-turns.ts runsBeforeParked). Records written before it
 * came due but read after (a lagging main partition) keep the old rule: in one generation behind
 * it, after a new one ahead of it (documented in docs/runtime.md).
 *
 * Attack 29, side finding: ORDER. Scenario (attack 25's scene, waiting-replay-world.ts): k:a
 * fails on the main topic and in 1m, k is held; a DLQ replay of k, k:w, comes due and waits its
 * turn (1m offset 1); k:b, written a second later, is parked behind k's hold and k:w's turn
 * (docs/runtime.md: a waiting replay "runs after the key's hold ends and after the parked records
 * that were read before it came due"). The consumer restarts (or the group rebalances) before
 * k's retry ends. Seen before the fix: k:x0, k:a FAIL, k:a FAIL, k:a, k:b, k:w.
 */
jest.setTimeout(60_000);

async function scene(reaction: 'kafkajs' | 'confluent', between: 'restart' | 'rebalance') {
  const w = world();
  const retrying = await replayWaitingBehindHeldKey(w, reaction);
  // k:b is written a second after the replay came due (a timer, so the run stops there).
  w.clock.setTimer(1_000, () => undefined);
  await w.broker.run({ until: w.clock.now() + 1_000 });
  await parkNewerRecordOfKey(w);
  let running = retrying;
  if (between === 'restart') {
    await retrying.stop(); // a deploy while k is still held
    running = await w.start();
  } else {
    w.broker.rebalance(consumer.groups.main);
  }
  await w.broker.run({ until: w.clock.now() + 3 * 3_600_000 });
  await running.stop();
  expect(w.handled).toEqual(['k:x0', 'k:a FAIL', 'k:a FAIL', 'k:a', 'k:w', 'k:b']);
}

describe.each(['kafkajs', 'confluent'] as const)('with the %s client\'s reaction to a throw', (reaction) => {
  it('a replay waiting its turn keeps its place ahead of a newer record parked behind it across a restart', () => scene(reaction, 'restart'));
  it('a replay waiting its turn keeps its place ahead of a newer record parked behind it across a rebalance', () => scene(reaction, 'rebalance'));
});
