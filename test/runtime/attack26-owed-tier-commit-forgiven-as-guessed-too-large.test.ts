import { confluentParkByKeyMember } from './confluent-commits-double';
import { consumer, replayInto, tier1m } from './park-by-key-world';

/**
 * Attack 26, finding: ORDER (caused by 8034db8: a debt whose payment is refused as too large is
 * forgiven, where 9c99f0b sent it again as its offset alone).
 *
 * Scenario (the Confluent client, commits confirmed by reading them back: confirmed-commit.ts): k:a
 * fails on the main topic and in the 1m tier (k held, its copy in the 10m tier); forty records of
 * other keys run (the main position passes 36: the state's main commit takes two base-36 digits
 * in the tier commits' metadata). A DLQ replay of k, k:w, waits its turn at 1m offset 1; k:b parks
 * behind. k:a's 10m copy succeeds: the release runs k:w and stores the state; the 1m commit past
 * k:w (offset 2, `+16` in its metadata where the stored 1m commit says `+2`) is answered but not
 * stored by a coordinator in a short outage: owed. k:b's turn comes; its state commit pays the
 * debt first, and that payment is lost the same way: commitConfirmed sees the same partition's
 * commit not shown twice in a row with more metadata than the stored one and guesses it "too
 * large" (refusedTwice). payOwedTierCommits() forgives every debt refused as too large: k:b's
 * state (k free, k:b done) is stored over the debt, and nothing else commits the 1m tier. A
 * restart (a deploy) an hour later, no fault since.
 *
 * Seen: k:x0, k:a FAIL, k:a FAIL, k:a, k:w, k:b, k:w: the 1m tier is read again from 1, k:w is a
 * fresh replay to the state (no hold names it) and runs again after k:b: an older update applied
 * over a newer one of its key. By the code's reading (not run here) the same follows on a broker
 * whose offset.metadata.max.bytes really sits under the debt's metadata (kafkajs names the
 * refusal): the debt's bytes are fixed when owed, so sent again as they are, they are refused
 * again and forgiven. The guess also lowers the main partition's budget (to one hold with the id,
 * 51 bytes here) on a tier commit's size.
 * At 9c99f0b^ (before the debt): fails the same way (attack 13's case, the refused tier commit
 * never sent again). At 9c99f0b: passes (the debt refused as too large is owed again as its offset
 * alone, no metadata, and that is stored before the next state).
 *
 * Code at fault: src/runtime/key-parking.ts payOwedTierCommits(): `if (refusedAsTooLarge(error))
 * for (const debt of owed) parking.turns.forgive(partition, debt)`: too large says the metadata
 * cannot be stored, not that the offset need not be; and on the Confluent client "too large" is a
 * guess an outage also makes. Forgiven, the debt's replay is recorded as run by nothing.
 *
 * Class: the catch-up of a durable record dropped on a refusal that says nothing of its need
 * (attack 13 / 25's family: a state stored ahead of the tier commit that records a replay's run).
 *
 * Fix: on a too-large refusal keep the debt, with its metadata fitted again to the lowered budget
 * (fitTierCommit) or dropped (the offset alone records the run; records past it are read again
 * and judged), as 9c99f0b did, but without failing the operation; forgive only what the group
 * commit check forgives.
 *
 * Fixed: a payment refused as too large is owed again as its offset alone, not forgiven
 * (key-parking.ts payOwedTierCommits); and the replay's run is in the state itself when the
 * budget has room for it (ran-unjudged.ts), so a restart skips it whatever became of the debt.
 */
jest.setTimeout(60_000);

describe('park-by-key on the Confluent client, an owed tier commit whose payment is lost too, in a short outage', () => {
  it('still records the replay as run: after a restart it does not run again after the newer record of its key', async () => {
    const failing = new Map<string, number>([['k:a', 2]]);
    let outage = true;
    const m = confluentParkByKeyMember({
      now: 1_000_000,
      // The 1m commit past k:w, answered and not stored: when owed, and when paid.
      lost: (o) => outage && o.topic === tier1m!.topic && o.offset === '2',
      times: 2,
      fails: (label) => {
        const n = failing.get(label) ?? 0;
        if (n > 0) failing.set(label, n - 1);
        return n > 0;
      },
    });
    m.produce('k', 'x0'); // main offset 0: the replay's original, below the position
    m.produce('k', 'a'); // main offset 1: fails on the main topic and in 1m; its copy in 10m
    let retrying = await m.start();
    await m.broker.run({ stopWhen: () => m.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    for (let i = 0; i < 40; i++) m.produce(`n${i}`, 'v'); // other keys: the main commit passes 36
    await m.broker.run({ stopWhen: () => m.handled.includes('n39:v') });
    replayInto(m.broker, m.clock, 'k', 'w', 0, 0); // 1m offset 1, due now: k is held, it waits its turn
    await m.broker.run({ stopWhen: () => m.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic) });
    m.produce('k', 'b'); // parked behind k's hold and the replay's turn
    await m.broker.run({ stopWhen: () => m.events.some((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic) });
    await m.broker.run({ stopWhen: () => m.handled.includes('k:b') });
    await m.broker.run({ until: m.clock.now() + 1_000 });
    outage = false;
    await m.broker.run({ until: m.clock.now() + 3_600_000 });
    await retrying.stop(); // a restart (a deploy)
    retrying = await m.start();
    await m.broker.run({ until: m.clock.now() + 3_600_000 });
    await retrying.stop();
    const ofK = m.handled.filter((h) => h.startsWith('k:'));
    // Seen: k:x0, k:a FAIL, k:a FAIL, k:a, k:w, k:b, k:w
    expect(ofK).toContain('k:b');
    expect(ofK.lastIndexOf('k:w')).toBeLessThan(ofK.indexOf('k:b'));
  });
});
