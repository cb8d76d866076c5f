import fc from 'fast-check';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { billingDescriptor } from './descriptor';
import { asyncPropertyRuns } from './fault-runs';
import { DEFAULT_STALL_BUDGET } from './fault-world';
import { PARTITIONS, soak } from './soak-world';
import type { Action, Behaviour, SoakRecord, Stretch } from './soak-world';

/**
 * Bounded so that `npm test` stays fast; KRT_PROPERTY_RUNS raises it for a longer soak,
 * KRT_PROPERTY_SEED and KRT_PROPERTY_PATH pick a run and replay a failing case. A case that
 * stalls fails within the fault harness's step budget, naming what never happened.
 */
const SOAK_RUNS = asyncPropertyRuns(60);
// The default runs take a few seconds; a loaded CI machine may take several times that.
jest.setTimeout(Math.max(120_000, SOAK_RUNS.numRuns! * 200));

const behaviours = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Behaviour>({ kind: 'ok' }) },
  fc.constant<Behaviour>({ kind: 'poison' }),
  fc.integer({ min: 1, max: 4 }).map<Behaviour>((times) => ({ kind: 'flaky', times })),
  fc.constant<Behaviour>({ kind: 'odd' }),
);
/** `stage`: produced before the stretch of that number, so records arrive while writes or commits are refused too. */
const records = fc.array(
  fc.record({ key: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: null }), partition: fc.nat({ max: PARTITIONS - 1 }), behaviour: behaviours, stage: fc.nat({ max: 4 }) }),
  { minLength: 1, maxLength: 25 },
);
const actions = fc.array(
  fc.record({ action: fc.oneof({ weight: 3, arbitrary: fc.constant<Action>('refuse-writes') }, { weight: 4, arbitrary: fc.constantFrom<Action>('run', 'rebalance', 'restart', 'refuse-commits') }), advanceMs: fc.integer({ min: 0, max: 200_000 }), refusals: fc.integer({ min: 1, max: 6 }) }),
  { maxLength: 8 },
);
/** Port calls at which the process dies hard: no stop(), nothing more of it reaches the broker. */
const crashes = fc.array(fc.nat({ max: 300 }), { maxLength: 3 });

/** How close passing cases come to the stall budget, and the slowest case: a long soak prints both. */
let longestIdle = 0;
let slowestMs = 0;
afterAll(() => console.log(`soak: at most ${longestIdle} steps in a row without progress in a passing case (budget ${DEFAULT_STALL_BUDGET.steps}); slowest case ${slowestMs} ms`));
async function measured(d: ConsumerDescriptor, batch: SoakRecord[], schedule: Stretch[], crashSteps: number[]): Promise<void> {
  const started = Date.now();
  const result = await soak(d, batch, schedule, crashSteps);
  longestIdle = Math.max(longestIdle, result.longestIdle);
  slowestMs = Math.max(slowestMs, Date.now() - started);
}

describe('a soak on the in-memory broker: random poison records, rebalances, restarts, refused writes and commits, hard crashes', () => {
  const tiers = billingDescriptor().tiers.slice(0, 2);

  it('loses nothing and leaves no partition stuck, unordered', async () => {
    const d = billingDescriptor({ tiers, inPlace: { attempts: 2, backoffMs: 100, maxBackoffMs: 1_000, jitter: 0.5 } });
    await fc.assert(fc.asyncProperty(records, actions, crashes, (batch, schedule, crashSteps) => measured(d, batch, schedule, crashSteps)), SOAK_RUNS);
  });

  it('loses nothing and leaves no partition stuck, with park-by-key', async () => {
    const d = billingDescriptor({ tiers, ordering: 'park-by-key', groups: { ...billingDescriptor().groups, retry: billingDescriptor().groups.main } });
    await fc.assert(fc.asyncProperty(records, actions, crashes, (batch, schedule, crashSteps) => measured(d, batch, schedule, crashSteps)), SOAK_RUNS);
  });
});
