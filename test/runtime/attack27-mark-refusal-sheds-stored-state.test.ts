import { consumer, T0, world } from './park-by-key-world';

/**
 * Attack 27, finding: DUPLICATES and a PAUSE (caused by 020e919: a refusal of a state carrying
 * replay marks is taught to the budget at the state's size without them).
 *
 * Scenario (kafkajs: the broker names the refusal): k:a and j:a fail on the main topic and in the
 * 1m tier (k and j held, their copies in 10m); k:b parks behind k's hold; m:1 (a free key) runs:
 * the stored state is `+2 !id <j>@3 <k>@4:2 .` (60 bytes). The coordinator's
 * offset.metadata.max.bytes is then lowered to 64 (a rolling config change; the same holds for a
 * parkingBudgetBytes configured above the broker's limit, and, by the code's reading, for the
 * configured budget tried again after BUDGET_RETRY_AFTER_COMMITS accepted commits at a lowered
 * one). A DLQ replay of a free key, r:w, runs ('done'): its run is marked (`%0.2=...`), and the
 * state commit, 60 bytes plus the mark, is refused as too large.
 *
 * Seen: commitState() reports the refusal at budgetedBytes(state), the size without the mark (60):
 * the budget comes down to 59 and refusedBytes is 60, under the state the broker keeps. The load
 * that follows (the operation failed) finds the stored state (60 bytes, measured whole) "refused
 * as is" and sheds it: the position moves back to the oldest parked record (k:b, offset 3) and
 * every record handled since runs again (m:1 twice here; with a key held for hours, every record
 * of the partition since its parked record). The partition then pauses at the lowered budget
 * (`parking-full` with two keys held) until a release. Before the marks a replay run 'done'
 * committed no state and nothing was refused.
 * At 70e4417 (before the marks): passes.
 *
 * Code at fault: src/runtime/key-parking.ts commitState() (`c.topic === mainTopic ?
 * budgetedBytes(state)`) with parking-budget.ts commitRefused() and key-parking.ts
 * shedOverBudget() (`Buffer.byteLength(parkStateMetadata(stored)) >= budget.refusedBytes`, the
 * stored state measured with its marks against a refusal measured without them): a refusal the
 * marks caused is taken for a refusal of the holds and parked records.
 *
 * Class: two measures of one state (with and without the marks) compared as one; a refusal
 * taught below what the broker keeps.
 *
 * Fix: a state commit refused as too large while it carried marks drops the marks (they cost
 * order only) and teaches the budget the size sent (the whole metadata), not the size without
 * them; shedOverBudget compares budgetedBytes(stored) with refusedBytes, like with like.
 *
 * Fixed: a state refused as too large while carrying runs goes again at once without them, the
 * budget taught the size actually sent; the shed measures the stored state as the budget does,
 * without them (key-parking.ts commitState, shedOverBudget).
 */
jest.setTimeout(60_000);

describe('park-by-key, a state commit refused only for the replay marks it carries', () => {
  it('does not shed the stored state the broker keeps: no handled record runs again', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.produce('r', 'x0'); // main offset 0: the replay's original
    for (const key of ['k', 'j']) {
      w.failOnce.add(`${key}:a`);
      w.produce(key, 'a'); // main offsets 1, 2: fail, held
    }
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('j:a FAIL') });
    w.failOnce.add('k:a');
    w.failOnce.add('j:a'); // their 1m copies fail too: the retries go on in the 10m tier
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'j:a FAIL').length === 2 });
    w.produce('k', 'b'); // main offset 3: parked behind k's hold
    w.produce('m', '1'); // main offset 4: a free key, handled
    await w.broker.run({ stopWhen: () => w.handled.includes('m:1') });
    const stored = w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0) ?? '';
    // The coordinator now keeps a few bytes more than the stored state: less than one replay mark more.
    w.broker.metadataMaxBytes = Buffer.byteLength(stored) + 4;
    w.replay('r', 'w', 0, 0); // 1m offset 2, due now: r is free, it runs ('done': no hold), its run is marked
    await w.broker.run({ until: T0 + 3_600_000 });
    await retrying.stop();
    // Seen: r:x0, k:a FAIL, j:a FAIL, k:a FAIL, j:a FAIL, m:1, r:w, k:a, j:a, r:w, k:b, m:1 (shed: rerunTo 5)
    expect(w.handled.filter((h) => h === 'm:1')).toHaveLength(1);
    expect(w.events.filter((e) => e.type === 'park-state-shed')).toHaveLength(0);
  });
});
