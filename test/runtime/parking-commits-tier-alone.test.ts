import { KafkaJSProtocolError } from 'kafkajs';
import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import type { OffsetCommit } from '../../src/runtime/port';
import { consumer, hookConsumers, T0, tier1m, timedOn, world } from './park-by-key-world';

/*
 * parking-commits.ts commit(): only tier commits that follow a stored state are waited out in
 * place; a tier commit sent alone (no record of the main state changed: here a retry that fails
 * again and goes on to the next tier) is not, as its record is read again and judged again.
 * And no request goes out empty. (Stryker's survivors on `state.length > 0 && tiers.length > 0`.)
 */
jest.setTimeout(60_000);

const loading = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is loading offsets', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string));

describe('park-by-key (kafkajs), a tier commit sent alone and refused while the coordinator loads', () => {
  it('is not waited out in the callback, and no commit request goes out empty', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    const requests: OffsetCommit[][] = [];
    let refusingFrom: number | undefined;
    let longest = 0;
    hookConsumers(w, {
      commit: (offsets) => {
        requests.push(offsets);
        const tierAlone = offsets.length > 0 && offsets.every((o) => o.topic === tier1m!.topic);
        if (tierAlone && refusingFrom !== undefined && w.clock.now() < refusingFrom + 20_000) throw loading();
      },
      message: timedOn(w.clock, (ms) => (longest = Math.max(longest, ms))),
    });
    w.failOnce.add('k:a'); // its main try fails: k held, its copy in 1m
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    // Its 1m copy fails too (on to 10m): the 1m offset is committed alone, and refused for 20 s.
    w.alwaysFail.add('k:a');
    refusingFrom = T0 + 60_000;
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await retrying.stop();
    expect(w.runs.filter((r) => r.topic === tier1m!.topic).length).toBeGreaterThanOrEqual(1);
    expect(requests.filter((r) => r.length === 0)).toEqual([]);
    // Waited out in place, a callback lasts the 20 s of refusals; failing, it waits at most the pacing of a failed operation (5 s).
    expect(longest).toBeLessThanOrEqual(5_000);
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(1);
  });
});
