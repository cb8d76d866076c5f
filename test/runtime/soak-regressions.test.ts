import { billingDescriptor } from './descriptor';
import { soak } from './soak-world';

/** The soak's descriptors: two tiers, unordered with two in-place attempts. */
const tiers = billingDescriptor().tiers.slice(0, 2);
const unordered = billingDescriptor({ tiers, inPlace: { attempts: 2, backoffMs: 100, maxBackoffMs: 1_000, jitter: 0.5 } });

describe('soak regressions: cases the soak found and shrank', () => {
  it('a process killed during the stop() of a clean restart is followed by a new one, and nothing is lost (seed 1706779890)', async () => {
    // Port call 15 is the commit stop() sends for the tier record it finished: the process
    // dies there, so its stop() never returns (a killed process's calls never answer). The
    // soak waited on that stop() for good and ran into jest's timeout.
    await soak(
      unordered,
      [
        { key: null, partition: 0, behaviour: { kind: 'odd' }, stage: 1 },
        { key: null, partition: 0, behaviour: { kind: 'ok' }, stage: 0 },
      ],
      [
        { action: 'run', advanceMs: 1, refusals: 1 },
        { action: 'restart', advanceMs: 101, refusals: 1 },
      ],
      [15],
    );
  });
});
