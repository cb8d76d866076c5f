import { world } from './park-by-key-world';

/**
 * Found by attack 11. A deploy that lowers `parkingBudgetBytes` under a partition's stored state
 * (no refusal at all: the broker keeps the state, at its default 4096 bytes) sheds that state on
 * the first load: its holds are given up and its keys' newer records run before their retries.
 * docs/runtime.md says of the budget "at parkingBudgetBytes the partition pauses until a key is
 * released: nothing is lost or reordered", and tells the operator who sees
 * `parking-budget-lowered` to "lower parkingBudgetBytes to it"; its paragraph on the shed speaks
 * only of a broker limit lowered under the state (events.ts says "or parkingBudgetBytes was").
 * Before 24080e9 such a partition paused until its retries ended, its order kept.
 *
 * Scenario (kafkajs): six keys of partition 0 fail into the 1m tier (the stored state holds six
 * keys, ~120 bytes). The consumer is redeployed with `parkingBudgetBytes: 60`. k2's newer record
 * k2:new comes.
 *
 * Seen: `park-state-shed` (budget 60, five of six holds given up), and the handler sees
 * k0:old, k2:new, k1:old, k2:old: k2:new before k2:old's retry.
 *
 * At fault: key-parking.ts shedOverBudget() sheds a stored state over `budgetBytes` whatever
 * lowered it (shed-park-state.ts: "or the configured budget was"), though the broker was never
 * asked. Class: a size check against a configured number taken for the broker's word.
 *
 * Fix: shed only a state the broker refused (the stored state, or one no larger, refused as too
 * large); a stored state over a configured budget the broker never refused loads as it is and
 * pauses the partition until releases bring it under, as the docs say.
 *
 * Fixed: only a state the broker refused by name, at its size or less, is shed (key-parking.ts
 * shedOverBudget, `refusedBytes`); a budget lowered by configuration pauses the partition.
 */
describe('park-by-key redeployed with a parkingBudgetBytes under a stored state the broker keeps', () => {
  it('keeps its keys in order (the partition pauses until their retries end), with no shed', async () => {
    const w = world();
    const keys = Array.from({ length: 6 }, (_, i) => `k${i}`);
    for (const k of keys) {
      w.failOnce.add(`${k}:old`);
      w.produce(k, 'old');
    }
    const first = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === keys.length });
    await first.stop();
    expect(w.parkState().held.size).toBe(6);

    const second = await w.start({ parkingBudgetBytes: 60 });
    w.produce('k2', 'new');
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await second.stop();

    expect(w.events.filter((e) => e.type === 'park-state-shed')).toEqual([]);
    expect(w.handled.indexOf('k2:old')).toBeGreaterThanOrEqual(0);
    expect(w.handled.indexOf('k2:new')).toBeGreaterThan(w.handled.indexOf('k2:old'));
  });
});
