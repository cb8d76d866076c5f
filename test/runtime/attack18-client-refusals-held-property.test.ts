import fc from 'fast-check';
import type { ConsumerPort, KafkaPort } from '../../src/runtime/port';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { MemoryBroker } from '../../src/simulate/memory-broker';
import type { VirtualClock } from '../../src/simulate/virtual-clock';
import { asyncPropertyRuns } from './fault-runs';
import { hidingControlRecords } from './control-record-port';
import { expectLastLogRanWithinWindows, heldRecreationsFields, runHeldRecreations, SLICES } from './recreated-main-held-run';
import type { HeldRecreationsResult, Kind } from './recreated-main-held-run';

/**
 * Attack 18's widening of attack17-held-anchor-widened-property: the client refuses seeks and
 * resumes now and then (the Confluent client while it rejoins, kafkajs while its consumer
 * restarts), from a slice on, a few times in a row. The rest as attack 17's (no control records).
 * stop() runs with the clock moving (a refused resume is tried again on its timer).
 *
 * It fails at its seed 18 after 11 cases (shrunk: big and small, one publish in flight, a
 * rebalance whose resume is refused once): the partition held again after the rebalance is not
 * paused and its batches spin (attack18-rebalance-refused-resume-held-again-spins). Pinned at
 * seed 18 as it.failing; flip it to `it` once that is fixed, and run it at other seeds.
 *
 * Passes since attack 18's findings were fixed (11d63ff, and resumeOwed in main-pipeline.ts).
 */
const PARAMETERS = asyncPropertyRuns(100);
jest.setTimeout(Math.max(600_000, PARAMETERS.numRuns! * 300));

const slice = fc.nat({ max: SLICES });
const scenarioOf = (kinds: readonly Kind[]) => fc.record({
  ...heldRecreationsFields(kinds),
  clientRefusals: fc.option(fc.record({ at: slice, times: fc.integer({ min: 1, max: 3 }), seeks: fc.boolean(), resumes: fc.boolean() }), { nil: undefined }),
});
const scenario = scenarioOf(['small', 'small', 'big']);
/** With control records: a new log may hide its offset 0 or the anchor's offset. */
const scenarioWithControls = scenarioOf(['small', 'small', 'big', 'control']);
type Scenario = typeof scenarioWithControls extends fc.Arbitrary<infer S> ? S : never;

function run(s: Scenario): Promise<HeldRecreationsResult> {
  const refusing = { seeks: 0, resumes: 0 };
  return runHeldRecreations(s, {
    port: (port) => refusingClientCalls(refusing, hidingControlRecords(port)),
    atSlice: (at) => {
      if (s.clientRefusals?.at !== at) return 0;
      refusing.seeks = s.clientRefusals.seeks ? s.clientRefusals.times : 0;
      refusing.resumes = s.clientRefusals.resumes ? s.clientRefusals.times : 0;
      return 1;
    },
    stop: (world, retrying) => stopWhileRunning(world.broker, world.clock, retrying),
  });
}

/**
 * stop() while the clock runs: a refused seek or resume is tried again on the clock's timer
 * (RESUME_RETRY_MS), which stop() waits for; with the virtual clock standing still it never comes.
 */
async function stopWhileRunning(broker: MemoryBroker, clock: VirtualClock, retrying: RetryingConsumer): Promise<void> {
  let stopped = false;
  const stopping = retrying.stop().finally(() => (stopped = true));
  await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000, stopWhen: () => stopped }).catch(() => undefined);
  await stopping;
}

/** `port` whose consumers refuse the next `refusing.seeks` seeks and `refusing.resumes` resumes. */
function refusingClientCalls(refusing: { seeks: number; resumes: number }, port: KafkaPort): KafkaPort {
  return {
    producer: port.producer,
    consumer: (groupId, options): ConsumerPort => {
      const inner = port.consumer(groupId, options);
      return new Proxy(inner, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (name === 'seek' || name === 'resume') {
            return (...args: unknown[]) => {
              const kind = name === 'seek' ? 'seeks' : 'resumes';
              if (refusing[kind] > 0) {
                refusing[kind]--;
                throw new Error('Erroneous state');
              }
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

describe('attack 18: unordered, the main topic created again while records are held, the client refusing seeks and resumes now and then', () => {
  const holds = async (s: Scenario) => expectLastLogRanWithinWindows(await run(s));

  it('runs every record of the last log, and runs again no more than a commit window per incident', async () => {
    await fc.assert(fc.asyncProperty(scenario, holds), { ...PARAMETERS, seed: 18, numRuns: Math.max(PARAMETERS.numRuns!, 100) });
  });
});
